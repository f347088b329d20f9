// The pages people see are the dashboard's (served by the gateway at the site root); identity serves
// APIs only, yet has to name some of these pages: Better Auth's OAuth provider sends browsers to the
// sign-in, consent and device pages, and mails link to the dashboard. The paths are written once here,
// in the dashboard's language (Indonesian), and the language cookie both sides read.

export const DASHBOARD = {
  home: '/',
  /** Sign-in, also the OAuth provider's login page (it continues the signed authorization request). */
  signIn: '/masuk',
  /** The OAuth consent page: the application, what each scope lets it do, the hospital; allow or deny. */
  consent: '/izin',
  /** SMART standalone launch: consent that also picks the one patient the application works with. */
  patientPicker: '/pilih-pasien',
  /** RFC 8628 verification_uri (verification_uri_complete adds `?user_code=`). */
  device: '/perangkat',
  account: '/akun',
} as const;

/** The language the person chose in the dashboard, remembered for identity's mails on the same site. */
export const LANGUAGE_COOKIE = 'simrs_lang';
export type Language = 'id' | 'en';

/** The chosen language from a Cookie header: `en` (or `en-US`...) is English, anything else Indonesian. */
export function languageOf(cookieHeader: string | undefined): Language {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === LANGUAGE_COOKIE) return /^en\b/i.test(part.slice(eq + 1).trim()) ? 'en' : 'id';
  }
  return 'id';
}
