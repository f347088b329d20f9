// Dates and numbers in the chosen language (Intl), Asia/Jakarta-agnostic: the browser's time zone.
import { useTranslation } from 'react-i18next';

const LOCALES: Record<string, string> = { id: 'id-ID', en: 'en-GB' };

export function useFormat() {
  const { i18n } = useTranslation();
  const locale = LOCALES[i18n.resolvedLanguage ?? 'id'] ?? 'id-ID';
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
  const time = new Intl.DateTimeFormat(locale, { timeStyle: 'short' });
  const number = new Intl.NumberFormat(locale);
  const relative = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  return {
    locale,
    /** A timestamp (ISO string or Date) with date and time. */
    dateTime: (value: string | Date | null | undefined) => (value ? dateTime.format(new Date(value)) : '—'),
    /** The time of day of a timestamp. */
    time: (value: string | Date | null | undefined) => (value ? time.format(new Date(value)) : '—'),
    /** A calendar date (YYYY-MM-DD), shown without time-zone shifts. */
    date: (value: string | null | undefined) => (value ? date.format(new Date(`${value.slice(0, 10)}T00:00:00Z`)) : '—'),
    number: (value: number) => number.format(value),
    /** "3 minutes ago", "in 2 hours". */
    relative(value: string | Date) {
      const seconds = Math.round((new Date(value).getTime() - Date.now()) / 1000);
      const abs = Math.abs(seconds);
      if (abs < 60) return relative.format(seconds, 'second');
      if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
      if (abs < 86400) return relative.format(Math.round(seconds / 3600), 'hour');
      return relative.format(Math.round(seconds / 86400), 'day');
    },
  };
}

/** Age in whole years on a calendar date. */
export function ageOn(birth: string, today = new Date()): number {
  const [y, m, d] = birth.split('-').map(Number) as [number, number, number];
  let age = today.getFullYear() - y;
  if (today.getMonth() + 1 < m || (today.getMonth() + 1 === m && today.getDate() < d)) age--;
  return age;
}
