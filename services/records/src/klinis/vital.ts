// Vital signs as FHIR's vital-signs profile names them: one LOINC code and one UCUM unit per sign
// (blood pressure as one panel with systolic and diastolic components), the range a measurement must
// fall in to be believed at all (outside it the value is a typing error and refused), and the adult
// reference range outside which a believable value is flagged (L/H, and LL/HH when critical).
import type { Prepared } from './schema.ts';

export interface VitalSign {
  /** The key the API and the dashboard use. */
  key: string;
  loinc: string;
  display: string;
  unit: string;
  /** UCUM's human-readable form, for the FHIR Quantity's `unit`. */
  unitLabel: string;
  /** Outside: refused as implausible. */
  plausible: readonly [number, number];
  /** Outside: flagged L or H; outside `critical`: LL or HH. Undefined: never flagged (weight, height). */
  normal?: readonly [number, number];
  critical?: readonly [number, number];
}

export const BLOOD_PRESSURE = { loinc: '85354-9', display: 'Blood pressure panel with all children optional' };

export const VITAL_SIGNS: readonly VitalSign[] = [
  {
    key: 'sistolik',
    loinc: '8480-6',
    display: 'Systolic blood pressure',
    unit: 'mm[Hg]',
    unitLabel: 'mmHg',
    plausible: [40, 300],
    normal: [90, 139],
    critical: [70, 179],
  },
  {
    key: 'diastolik',
    loinc: '8462-4',
    display: 'Diastolic blood pressure',
    unit: 'mm[Hg]',
    unitLabel: 'mmHg',
    plausible: [20, 200],
    normal: [60, 89],
    critical: [40, 119],
  },
  {
    key: 'nadi',
    loinc: '8867-4',
    display: 'Heart rate',
    unit: '/min',
    unitLabel: 'beats/minute',
    plausible: [20, 300],
    normal: [60, 100],
    critical: [40, 140],
  },
  {
    key: 'napas',
    loinc: '9279-1',
    display: 'Respiratory rate',
    unit: '/min',
    unitLabel: 'breaths/minute',
    plausible: [4, 80],
    normal: [12, 20],
    critical: [8, 30],
  },
  {
    key: 'suhu',
    loinc: '8310-5',
    display: 'Body temperature',
    unit: 'Cel',
    unitLabel: 'C',
    plausible: [30, 45],
    normal: [36, 37.5],
    critical: [35, 40],
  },
  {
    key: 'spo2',
    loinc: '2708-6',
    display: 'Oxygen saturation in Arterial blood',
    unit: '%',
    unitLabel: '%',
    plausible: [50, 100],
    normal: [95, 100],
    critical: [90, 100],
  },
  { key: 'beratBadan', loinc: '29463-7', display: 'Body weight', unit: 'kg', unitLabel: 'kg', plausible: [0.3, 400] },
  { key: 'tinggiBadan', loinc: '8302-2', display: 'Body height', unit: 'cm', unitLabel: 'cm', plausible: [20, 260] },
];

const BY_KEY = new Map(VITAL_SIGNS.map((v) => [v.key, v]));
const BY_LOINC = new Map(VITAL_SIGNS.map((v) => [v.loinc, v]));
export const vitalByKey = (key: string) => BY_KEY.get(key);
export const vitalByLoinc = (loinc: string) => BY_LOINC.get(loinc);

export type Flag = 'N' | 'L' | 'H' | 'LL' | 'HH';
const SEVERITY: Record<Flag, number> = { N: 0, L: 1, H: 1, LL: 2, HH: 2 };

/** The interpretation of a believable value: normal, low, high, critically low or high. */
export function flagOf(sign: VitalSign, value: number): Flag {
  if (!sign.normal) return 'N';
  const [lo, hi] = sign.normal;
  if (value >= lo && value <= hi) return 'N';
  const [clo, chi] = sign.critical ?? [-Infinity, Infinity];
  if (value < lo) return value < clo ? 'LL' : 'L';
  return value > chi ? 'HH' : 'H';
}

/** The worse of two flags (a blood pressure is flagged by its worse component). */
export const worseFlag = (a: Flag, b: Flag): Flag => (SEVERITY[b] > SEVERITY[a] ? b : a);

/** One measurement as the API takes it: a sign's key, its value, and its unit (which must be the sign's). */
export interface Measurement {
  key: string;
  value: number;
  unit: string;
}

/** Field problems of one measurement (keyed relative to it), or none. */
export function checkMeasurement(m: Measurement): Record<string, string[]> {
  const sign = BY_KEY.get(m.key);
  if (!sign) return { key: [`unknown vital sign ${m.key}: one of ${VITAL_SIGNS.map((v) => v.key).join(', ')}`] };
  const problems: Record<string, string[]> = {};
  if (m.unit !== sign.unit)
    problems.unit = [`the unit of ${sign.display.toLowerCase()} (LOINC ${sign.loinc}) is ${sign.unit}, not ${m.unit}`];
  const [lo, hi] = sign.plausible;
  if (!(m.value >= lo && m.value <= hi))
    problems.value = [`${sign.display.toLowerCase()} of ${m.value} ${sign.unit} is not plausible: expected ${lo} to ${hi} ${sign.unit}`];
  return problems;
}

/**
 * The entries a set of checked measurements makes: one Observation per sign, except systolic and
 * diastolic, which make one blood-pressure panel (both are needed, and diastolic below systolic).
 */
export function prepareVitals(measurements: readonly Measurement[], field = 'measurements'): Prepared[] | Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const seen = new Map<string, number>();
  measurements.forEach((m, i) => {
    for (const [k, msgs] of Object.entries(checkMeasurement(m))) problems[`${field}.${i}.${k}`] = msgs;
    if (seen.has(m.key)) problems[`${field}.${i}.key`] = [`${m.key} is measured twice: give it once`];
    seen.set(m.key, i);
  });
  const sys = measurements.find((m) => m.key === 'sistolik');
  const dia = measurements.find((m) => m.key === 'diastolik');
  if (Boolean(sys) !== Boolean(dia)) problems[field] = ['blood pressure needs both sistolik and diastolik'];
  else if (sys && dia && dia.value >= sys.value) problems[`${field}.${seen.get('diastolik')}.value`] = ['diastolic must be below systolic'];
  if (measurements.length === 0) problems[field] = ['give at least one measurement'];
  if (Object.keys(problems).length > 0) return problems;
  const out: Prepared[] = [];
  if (sys && dia) {
    const flag = worseFlag(flagOf(BY_KEY.get('sistolik')!, sys.value), flagOf(BY_KEY.get('diastolik')!, dia.value));
    out.push({
      kode: BLOOD_PRESSURE.loinc,
      kategori: 'vital-signs',
      isi: { sistolik: sys.value, diastolik: dia.value, unit: 'mm[Hg]' },
      flag,
    });
  }
  for (const m of measurements) {
    if (m.key === 'sistolik' || m.key === 'diastolik') continue;
    const sign = BY_KEY.get(m.key)!;
    out.push({ kode: sign.loinc, kategori: 'vital-signs', isi: { value: m.value, unit: sign.unit }, flag: flagOf(sign, m.value) });
  }
  return out;
}
