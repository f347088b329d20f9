// The API's answers in the reader's language. records names each invalid field with an English
// message (error.data.fieldErrors); identity answers Better Auth codes (INVALID_OTP, ...) and its own
// admin messages. Known messages are matched here and translated; anything else is shown as sent.
import type { TFunction } from 'i18next';
import { TRPCClientError } from '@trpc/client';
import { AuthError } from './auth.ts';

type Rule = [RegExp, (t: TFunction, m: RegExpMatchArray) => string];

/** records' field messages (services/records pasien.ts, nik.ts, errors.ts). */
const FIELD_RULES: Rule[] = [
  [/must not be empty$/, (t) => t('fieldError.required')],
  [/^\w+ must be (text|a string of 16 digits|a phone number|a number)$/, (t) => t('fieldError.required')],
  [/must be at most (\d+) characters$/, (t, m) => t('fieldError.tooLong', { max: Number(m[1]) })],
  [/contains characters that are not allowed$/, (t) => t('fieldError.characters')],
  [/must contain letters$/, (t) => t('fieldError.letters')],
  [/must be a date YYYY-MM-DD$|is not a calendar date$/, (t) => t('fieldError.date')],
  [/must be between 1900-01-01 and today$/, (t) => t('fieldError.birthDateRange')],
  [/^NIK must be exactly 16 digits$/, (t) => t('fieldError.nikDigits')],
  [/^NIK starts with (\d\d), which is not/, (t, m) => t('fieldError.nikProvince', { code: m[1] })],
  [/^NIK has an empty regency or district code$/, (t) => t('fieldError.nikRegion')],
  [/^NIK digits 7-12 are not a valid date/, (t) => t('fieldError.nikDate')],
  [/^NIK serial .* cannot be 0000$/, (t) => t('fieldError.nikSerial')],
  [/^NIK date digits \(DDMMYY\) do not match the birth date$/, (t) => t('fieldError.nikBirthDate')],
  [/^NIK marks a woman/, (t) => t('fieldError.nikFemale')],
  [/^NIK marks a man/, (t) => t('fieldError.nikMale')],
  [/already registered in this hospital$/, (t) => t('fieldError.nikTaken')],
  [/must be one of /, (t) => t('fieldError.choice')],
  [/^telepon must start with/, (t) => t('fieldError.phonePrefix')],
  [/^telepon must have/, (t) => t('fieldError.phoneDigits')],
  [/^(rt|rw) must be 1 to 3 digits$/, (t) => t('fieldError.digits', { count: 3 })],
  [/^kodePos must be 5 digits$/, (t) => t('fieldError.exactDigits', { count: 5 })],
  [/^noBpjs must be 13 digits$/, (t) => t('fieldError.exactDigits', { count: 13 })],
  [/^nik must be 16 digits$/, (t) => t('fieldError.nikDigits')],
  [/^noRm must be up to 8 digits$/, (t) => t('fieldError.noRm')],
  // records' clinical checks (services/records klinis/vital.ts, kinds.ts)
  [/ is not plausible: expected ([\d.]+) to ([\d.]+) (\S+)$/, (t, m) => t('clinic.error.implausible', { lo: m[1], hi: m[2], unit: m[3] })],
  [/^diastolic must be below systolic$/, (t) => t('clinic.error.diastolicBelow')],
  [/^blood pressure needs both sistolik and diastolik$/, (t) => t('clinic.error.bpBoth')],
  [/is not a known ICD-10 code/, (t) => t('clinic.error.unknownCode')],
  [/^code must be an ICD-10 code/, (t) => t('clinic.error.codeFormat')],
  [/^reason must say why, in at least (\d+) characters$/, (t, m) => t('clinic.error.reasonShort', { min: Number(m[1]) })],
  // records' checks of when a vital sign was measured (klinis/schema.ts, store.ts); the visit's day as a
  // calendar date (UTC midnight, formatted in UTC), written out in the reader's language.
  [/^the visit is on (\d{4}-\d{2}-\d{2}): /, (t, m) => t('clinic.error.beforeVisit', { date: new Date(m[1]!) })],
  [/^the visit of (\d{4}-\d{2}-\d{2}) is finished/, (t, m) => t('clinic.error.afterVisit', { date: new Date(m[1]!) })],
  [/^waktu must not be in the future$/, (t) => t('clinic.error.future')],
];

/** records' refusals of clinical steps (409), in the reader's language; others are shown as sent. */
const CONFLICT_RULES: Rule[] = [
  [/^a primary diagnosis is required to finish/, (t) => t('clinic.error.needsPrimary')],
  [/already has a primary diagnosis/, (t) => t('clinic.error.primaryTaken')],
  [/^the visit has a note/, (t) => t('clinic.error.noteExists')],
  [/recorded as having no known allergy/, (t) => t('clinic.error.noneKnownRecorded')],
  [/has active allergies recorded/, (t) => t('clinic.error.allergiesRecorded')],
  [/takes no \w+ entries yet/, (t) => t('clinic.error.visitNotStarted')],
  [/^a [\w-]+ visit cannot become/, (t) => t('clinic.error.wrongState')],
];

/** identity's admin messages (services/identity admin.ts). */
const IDENTITY_RULES: Rule[] = [
  [/at least one active tenant_admin/, (t) => t('apiError.lastAdmin')],
  [/^that user is deactivated; reactivate them instead$/, (t) => t('apiError.inviteDeactivated')],
  [
    /^that user exists already as (\w+)/,
    (t, m) => t('apiError.inviteExists', { role: t(`role.${m[1] as 'doctor'}`, { defaultValue: m[1] }) }),
  ],
  [/^that address cannot be (invited|used)/, (t) => t('apiError.inviteAddress')],
  [/valid e-mail address is required/, (t) => t('fieldError.email')],
  [/^role must be one of/, (t) => t('fieldError.choice')],
  [/lifetime must be/, (t) => t('apiError.tokenLifetime')],
  [/^jwks_uri must be an https URL$/, (t) => t('backend.badUrl')],
];

function byRules(rules: Rule[], t: TFunction, message: string): string | undefined {
  for (const [pattern, render] of rules) {
    const m = message.match(pattern);
    if (m) return render(t, m);
  }
  return undefined;
}

export const translateFieldMessage = (t: TFunction, message: string) => byRules(FIELD_RULES, t, message) ?? message;

/** Per-field messages of a 400 from records, translated; `_input` holds the form-level ones. */
export function fieldErrorsOf(t: TFunction, err: unknown): Record<string, string> {
  if (!(err instanceof TRPCClientError)) return {};
  const fields = (err.data as { fieldErrors?: Record<string, string[]> } | undefined)?.fieldErrors ?? {};
  // The first message of a field is the one to act on (an empty name is not also "without letters").
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, m]) => m.length > 0)
      .map(([field, messages]) => [field, translateFieldMessage(t, messages[0]!)]),
  );
}

const AUTH_CODES: Record<string, string> = {
  INVALID_OTP: 'apiError.invalidOtp',
  OTP_EXPIRED: 'apiError.otpExpired',
  TOO_MANY_ATTEMPTS: 'apiError.tooManyAttempts',
  RATE_LIMITED: 'apiError.rateLimited',
  INVALID_EMAIL: 'fieldError.email',
  ACCOUNT_DISABLED: 'apiError.accountDisabled',
  INVALID_TOKEN: 'apiError.linkInvalid',
  EXPIRED_TOKEN: 'apiError.linkInvalid',
  AUTH_CANCELLED: 'apiError.passkeyCancelled',
  ERROR_CEREMONY_ABORTED: 'apiError.passkeyCancelled',
  ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED: 'apiError.passkeyExists',
  PASSKEY_NOT_FOUND: 'apiError.passkeyUnknown',
  UNAUTHORIZED: 'apiError.signedOut',
  DENIED: 'apiError.forbidden',
  FORBIDDEN: 'apiError.forbidden',
  NOT_FOUND: 'apiError.notFound',
  UNAVAILABLE: 'apiError.unavailable',
  // RFC 8628 device verification (identity refuses another hospital's device request as access_denied;
  // an unknown code, invalid_request, is worded by the device page).
  expired_token: 'apiError.deviceExpired',
  access_denied: 'apiError.deviceOtherHospital',
};

const STATUS_KEYS: Record<number, string> = {
  401: 'apiError.signedOut',
  403: 'apiError.forbidden',
  404: 'apiError.notFound',
  408: 'apiError.unavailable',
  429: 'apiError.rateLimited',
  502: 'apiError.unavailable',
  503: 'apiError.unavailable',
  504: 'apiError.unavailable',
};

/** One sentence for any error of a call to records or identity, in the reader's language. */
export function errorMessage(t: TFunction, err: unknown): string {
  if (err instanceof TRPCClientError) {
    const status = (err.data as { httpStatus?: number } | undefined)?.httpStatus;
    const message = err.message;
    if (status === 409) {
      if (/changed meanwhile/.test(message)) return t('apiError.changedMeanwhile');
      if (/archived/.test(message)) return t('apiError.archived');
      if (/NIK/.test(message)) return t('fieldError.nikTaken');
      return byRules(CONFLICT_RULES, t, message) ?? message;
    }
    if (status === 400) return fieldErrorsOf(t, err)._input ?? t('apiError.invalidInput');
    if (status && STATUS_KEYS[status]) return t(STATUS_KEYS[status] as 'apiError.forbidden');
    if (status === undefined) return t('apiError.network');
    return t('apiError.generic');
  }
  if (err instanceof AuthError) {
    const known = byRules(IDENTITY_RULES, t, err.message);
    if (known) return known;
    if (err.code && AUTH_CODES[err.code]) return t(AUTH_CODES[err.code] as 'apiError.forbidden');
    if (STATUS_KEYS[err.status]) return t(STATUS_KEYS[err.status] as 'apiError.forbidden');
    return err.message || t('apiError.generic');
  }
  if (err instanceof TypeError) return t('apiError.network');
  return t('apiError.generic');
}
