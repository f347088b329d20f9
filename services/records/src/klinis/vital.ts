// Vital signs as FHIR's vital-signs profile names them: one LOINC code and one UCUM unit per sign
// (blood pressure as one panel with systolic and diastolic components), the range a measurement must
// fall in to be believed at all (outside it the value is a typing error and refused), and the
// reference range outside which a believable value is flagged (L/H, and LL/HH when critical): the
// adult one, and for children that of their age, since a child's normal heart rate, breathing and
// blood pressure are an adult's abnormal ones.
import type { Prepared } from './schema.ts';

/** Outside `normal`: flagged L or H; outside `critical`: LL or HH (an infinite bound: never). */
export interface ReferenceRange {
  normal: readonly [number, number];
  critical?: readonly [number, number];
}

/** The reference range of children younger than `below` years (and older than the band before). */
export interface AgeBand extends ReferenceRange {
  below: number;
}

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
  /** The adult reference range (see ReferenceRange). Undefined: never flagged (weight, height). */
  normal?: readonly [number, number];
  critical?: readonly [number, number];
  /** Children's reference ranges by age, youngest first; from the last band's age on, the adult one. */
  children?: readonly AgeBand[];
}

/** The first 28 days of life, in years. */
const NEONATE = 28 / 365.25;
const NONE = Number.POSITIVE_INFINITY;

// Children's ranges: the awake heart rate, the respiratory rate and the blood pressure of the American
// Heart Association's Pediatric Advanced Life Support tables. Critical: its hypotension (a systolic
// below 60 in neonates, 70 in infants, 70 + 2 × age from one to ten years, 90 from ten), bradycardia
// needing action (below 60) and the rates that suggest supraventricular tachycardia (above 220 in
// infants, 180 in children); a child's breathing and diastolic pressure are flagged L or H only.
const CHILD_SYSTOLIC: readonly AgeBand[] = [
  { below: NEONATE, normal: [67, 84], critical: [60, NONE] },
  { below: 1, normal: [72, 104], critical: [70, NONE] },
  { below: 3, normal: [86, 106], critical: [72, NONE] },
  { below: 6, normal: [89, 112], critical: [76, NONE] },
  { below: 10, normal: [97, 115], critical: [82, NONE] },
  { below: 13, normal: [102, 120], critical: [90, NONE] },
  { below: 16, normal: [110, 131], critical: [90, NONE] },
];
const CHILD_DIASTOLIC: readonly AgeBand[] = [
  { below: NEONATE, normal: [35, 53] },
  { below: 1, normal: [37, 56] },
  { below: 3, normal: [42, 63] },
  { below: 6, normal: [46, 72] },
  { below: 10, normal: [57, 76] },
  { below: 13, normal: [61, 80] },
  { below: 16, normal: [64, 83] },
];
const CHILD_HEART_RATE: readonly AgeBand[] = [
  { below: NEONATE, normal: [100, 205], critical: [60, 220] },
  { below: 1, normal: [100, 180], critical: [60, 220] },
  { below: 3, normal: [98, 140], critical: [60, 180] },
  { below: 6, normal: [80, 120], critical: [60, 180] },
  { below: 13, normal: [75, 118], critical: [60, 180] },
];
const CHILD_RESPIRATORY_RATE: readonly AgeBand[] = [
  { below: 1, normal: [30, 53] },
  { below: 3, normal: [22, 37] },
  { below: 6, normal: [20, 28] },
  { below: 13, normal: [18, 25] },
];

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
    children: CHILD_SYSTOLIC,
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
    children: CHILD_DIASTOLIC,
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
    children: CHILD_HEART_RATE,
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
    children: CHILD_RESPIRATORY_RATE,
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

/** A year of ages, in ms: the same in ageInYears, its SQL and rangesOver. */
const YEAR_MS = 365.25 * 86_400_000;
/** The start of the day of birth (YYYY-MM-DD), in epoch ms. */
const bornAt = (birthDate: string) => Date.parse(`${birthDate.slice(0, 10)}T00:00:00Z`);

/** Years from `birthDate` (YYYY-MM-DD) to `at`, with the fraction: a newborn's days count. */
export function ageInYears(birthDate: string, at: Date | string = new Date()): number {
  return Math.max(0, new Date(at).getTime() - bornAt(birthDate)) / YEAR_MS;
}

/** ageInYears in SQL: the same years, from a date expression `birthDate` to a timestamptz expression `at`. */
export const ageInYearsSql = (birthDate: string, at: string) =>
  `(extract(epoch from ${at} - (${birthDate}::timestamp at time zone 'UTC')) / 86400 / 365.25)`;

/**
 * The flag of an entry at `years` (SQL) from its flags by age (`byAge`, a jsonb of Prepared.byAge), else
 * `flag`: how a write picks the patient's band in its own statement.
 */
export const flagAtAgeSql = (byAge: string, flag: string, years: string) =>
  `coalesce((select b.band ->> 1 from jsonb_array_elements(${byAge}) with ordinality as b(band, n)
              where ${years} < (b.band ->> 0)::float8 order by b.n limit 1), ${flag})`;

/** The reference range for a patient of `ageYears` (unknown: the adult one); undefined: never flagged. */
export function referenceRange(sign: VitalSign, ageYears: number | undefined): ReferenceRange | undefined {
  const band = ageYears === undefined ? undefined : sign.children?.find((b) => ageYears < b.below);
  if (band) return band;
  return sign.normal ? { normal: sign.normal, ...(sign.critical ? { critical: sign.critical } : {}) } : undefined;
}

/** A stretch of time (epoch ms) over which a patient's reference range for a sign stays the same. */
export interface RangeSpan {
  from: number;
  to: number;
  range: ReferenceRange;
}

/**
 * The reference ranges a patient born on `birthDate` (unknown: the adult range throughout) passes
 * through from `from` to `to`, oldest first: a child's range changes at the ages its bands end. Empty
 * for a sign without one.
 */
export function rangesOver(sign: VitalSign, birthDate: string | undefined, from: number, to: number): RangeSpan[] {
  const born = birthDate ? bornAt(birthDate) : undefined;
  const edges = born === undefined ? [] : (sign.children ?? []).map((b) => born + b.below * YEAR_MS).filter((t) => t > from && t < to);
  const bounds = [from, ...edges, to];
  return bounds.slice(1).flatMap((end, i) => {
    // Judged at the span's middle, clear of the edge itself.
    const middle = (bounds[i]! + end) / 2;
    const range = referenceRange(sign, birthDate ? ageInYears(birthDate, new Date(middle)) : undefined);
    return range ? [{ from: bounds[i]!, to: end, range }] : [];
  });
}

/** Every age at which some sign's reference range changes, youngest first. */
const BAND_EDGES = [...new Set(VITAL_SIGNS.flatMap((v) => (v.children ?? []).map((b) => b.below)))].sort((a, b) => a - b);

/**
 * A flag as a function of age, as the bands it takes: [below, flag] for each band of ages (each judged
 * at its youngest age), youngest first; from the last edge on, the adult flag. Without any band, empty.
 */
export function flagsByAge(flagAt: (ageYears: number | undefined) => Flag): [number, Flag][] {
  const bands = BAND_EDGES.map((below, i): [number, Flag] => [below, flagAt(i === 0 ? 0 : BAND_EDGES[i - 1]!)]);
  const adult = flagAt(undefined);
  return bands.every(([, flag]) => flag === adult) ? [] : bands;
}

/** The interpretation of a believable value for a patient of `ageYears`: normal, low, high, critically low or high. */
export function flagOf(sign: VitalSign, value: number, ageYears?: number): Flag {
  const range = referenceRange(sign, ageYears);
  if (!range) return 'N';
  const [lo, hi] = range.normal;
  if (value >= lo && value <= hi) return 'N';
  const [clo, chi] = range.critical ?? [-Infinity, Infinity];
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
export function prepareVitals(
  measurements: readonly Measurement[],
  ageYears: number | undefined,
  field = 'measurements',
): Prepared[] | Record<string, string[]> {
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
  const flagged = (flagAt: (age: number | undefined) => Flag) => {
    const byAge = flagsByAge(flagAt);
    return { flag: flagAt(ageYears), ...(byAge.length ? { byAge } : {}) };
  };
  if (sys && dia) {
    const [s, d] = [BY_KEY.get('sistolik')!, BY_KEY.get('diastolik')!];
    out.push({
      kode: BLOOD_PRESSURE.loinc,
      kategori: 'vital-signs',
      isi: { sistolik: sys.value, diastolik: dia.value, unit: 'mm[Hg]' },
      ...flagged((age) => worseFlag(flagOf(s, sys.value, age), flagOf(d, dia.value, age))),
    });
  }
  for (const m of measurements) {
    if (m.key === 'sistolik' || m.key === 'diastolik') continue;
    const sign = BY_KEY.get(m.key)!;
    out.push({
      kode: sign.loinc,
      kategori: 'vital-signs',
      isi: { value: m.value, unit: sign.unit },
      ...flagged((age) => flagOf(sign, m.value, age)),
    });
  }
  return out;
}
