// i18next with react-i18next: Indonesian by default, English selectable. The choice is remembered in
// localStorage and in the `simrs_lang` cookie (readable by identity's pages and mails on the same site).
import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import { en } from '../locales/en.ts';
import { id } from '../locales/id.ts';

export const LANGUAGES = ['id', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_COOKIE = 'simrs_lang';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof id };
  }
}

void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources: { id: { translation: id }, en: { translation: en } },
    supportedLngs: [...LANGUAGES],
    fallbackLng: 'id',
    nonExplicitSupportedLngs: true,
    load: 'languageOnly',
    interpolation: { escapeValue: false },
    detection: {
      // Not the browser's language: the hospital's working language is the default.
      order: ['querystring', 'localStorage', 'cookie'],
      lookupQuerystring: 'lang',
      lookupLocalStorage: LANGUAGE_COOKIE,
      lookupCookie: LANGUAGE_COOKIE,
      caches: ['localStorage', 'cookie'],
      cookieMinutes: 60 * 24 * 365,
      cookieOptions: { path: '/', sameSite: 'lax' },
    },
  });

const syncHtmlLang = (lng: string) => document.documentElement.setAttribute('lang', lng);
syncHtmlLang(i18n.resolvedLanguage ?? 'id');
i18n.on('languageChanged', syncHtmlLang);

export default i18n;
