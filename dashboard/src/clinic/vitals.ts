// One vital-sign entry in words: the sign, its value(s) and unit (a blood pressure as systolic/diastolic).
import type { TFunction } from 'i18next';
import { BLOOD_PRESSURE, vitalByLoinc } from '@simrs/records/vital-signs';

export function describeVital(t: TFunction, e: { kode: string | null; isi: Record<string, unknown> }): string {
  if (e.kode === BLOOD_PRESSURE.loinc) return `${t('clinic.vitals.bp')} ${String(e.isi.sistolik)}/${String(e.isi.diastolik)} mmHg`;
  const sign = vitalByLoinc(String(e.kode));
  if (!sign) return String(e.kode);
  return `${t(`clinic.vitals.sign.${sign.key as 'nadi'}`)} ${String(e.isi.value)} ${t(`clinic.vitals.unit.${sign.key as 'nadi'}`)}`;
}

/** Whether an entry's flag marks it outside the reference range. */
export const isAbnormal = (flag: string | null | undefined) => Boolean(flag && flag !== 'N');
