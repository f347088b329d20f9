import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../lib/i18n.ts';

const NAMES: Record<string, string> = { id: 'Bahasa Indonesia', en: 'English' };

/** Switches the interface language at once; i18next remembers it. */
export function LanguageSelect({ compact = false }: { compact?: boolean }) {
  const { t, i18n } = useTranslation();
  const id = useId();
  return (
    <span className={compact ? 'language compact' : 'language'}>
      <label htmlFor={id} className={compact ? 'visually-hidden' : undefined}>
        {t('account.language')}
      </label>
      <select id={id} className="language-select" value={i18n.resolvedLanguage} onChange={(e) => void i18n.changeLanguage(e.target.value)}>
        {LANGUAGES.map((l) => (
          <option key={l} value={l} lang={l}>
            {NAMES[l]}
          </option>
        ))}
      </select>
    </span>
  );
}
