// NIK (Nomor Induk Kependudukan), the 16-digit Indonesian national identity number:
//
//   PP KK CC DDMMYY SSSS
//   PP province code, KK regency/city, CC district, DDMMYY date of birth (women: day + 40),
//   SSSS serial within that district and date (0001..9999).
//
// Validation checks the structure, the province, the embedded date, and (when the caller knows them)
// that the embedded date and sex agree with the patient's birth date and sex.

export const PROVINCES: Record<string, string> = {
  '11': 'Aceh',
  '12': 'Sumatera Utara',
  '13': 'Sumatera Barat',
  '14': 'Riau',
  '15': 'Jambi',
  '16': 'Sumatera Selatan',
  '17': 'Bengkulu',
  '18': 'Lampung',
  '19': 'Kepulauan Bangka Belitung',
  '21': 'Kepulauan Riau',
  '31': 'DKI Jakarta',
  '32': 'Jawa Barat',
  '33': 'Jawa Tengah',
  '34': 'DI Yogyakarta',
  '35': 'Jawa Timur',
  '36': 'Banten',
  '51': 'Bali',
  '52': 'Nusa Tenggara Barat',
  '53': 'Nusa Tenggara Timur',
  '61': 'Kalimantan Barat',
  '62': 'Kalimantan Tengah',
  '63': 'Kalimantan Selatan',
  '64': 'Kalimantan Timur',
  '65': 'Kalimantan Utara',
  '71': 'Sulawesi Utara',
  '72': 'Sulawesi Tengah',
  '73': 'Sulawesi Selatan',
  '74': 'Sulawesi Tenggara',
  '75': 'Gorontalo',
  '76': 'Sulawesi Barat',
  '81': 'Maluku',
  '82': 'Maluku Utara',
  '91': 'Papua',
  '92': 'Papua Barat',
  '93': 'Papua Selatan',
  '94': 'Papua Tengah',
  '95': 'Papua Pegunungan',
  '96': 'Papua Barat Daya',
};

export interface NikParts {
  province: string;
  regency: string;
  district: string;
  day: number;
  month: number;
  yy: number;
  female: boolean;
  serial: string;
}

function daysInMonth(month: number, year: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The parts of a structurally valid NIK, or the reason it is not one. */
export function parseNik(nik: string): NikParts | { error: string } {
  if (!/^\d{16}$/.test(nik)) return { error: 'NIK must be exactly 16 digits' };
  const province = nik.slice(0, 2);
  if (!(province in PROVINCES)) return { error: `NIK starts with ${province}, which is not an Indonesian province code` };
  const regency = nik.slice(2, 4);
  const district = nik.slice(4, 6);
  if (regency === '00' || district === '00') return { error: 'NIK has an empty regency or district code' };
  const rawDay = Number(nik.slice(6, 8));
  const month = Number(nik.slice(8, 10));
  const yy = Number(nik.slice(10, 12));
  const female = rawDay > 40;
  const day = female ? rawDay - 40 : rawDay;
  // A leap-year-safe bound: 29 February is valid for yy = 00 (2000) and every other leap year.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(month, 2000 + yy)) {
    return { error: 'NIK digits 7-12 are not a valid date of birth (DDMMYY, day + 40 for women)' };
  }
  const serial = nik.slice(12);
  if (serial === '0000') return { error: 'NIK serial (last 4 digits) cannot be 0000' };
  return { province, regency, district, day, month, yy, female, serial };
}

/** A reason the NIK disagrees with the birth date (YYYY-MM-DD) and sex, or undefined when they agree. */
export function nikMismatch(nik: string, tanggalLahir: string, jenisKelamin: 'L' | 'P'): string | undefined {
  const parts = parseNik(nik);
  if ('error' in parts) return parts.error;
  const [year, month, day] = tanggalLahir.split('-').map(Number) as [number, number, number];
  if (parts.day !== day || parts.month !== month || parts.yy !== year % 100) {
    return 'NIK date digits (DDMMYY) do not match the birth date';
  }
  if (parts.female !== (jenisKelamin === 'P')) {
    return parts.female ? 'NIK marks a woman (day + 40) but sex is L' : 'NIK marks a man but sex is P (women have day + 40)';
  }
  return undefined;
}

/** Builds a NIK from its parts (the synthetic data generator and tests). */
export function makeNik(opts: {
  province: string;
  regency: number;
  district: number;
  tanggalLahir: string;
  jenisKelamin: 'L' | 'P';
  serial: number;
}): string {
  const [year, month, day] = opts.tanggalLahir.split('-').map(Number) as [number, number, number];
  const dd = day + (opts.jenisKelamin === 'P' ? 40 : 0);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${opts.province}${two(opts.regency)}${two(opts.district)}${two(dd)}${two(month)}${two(year % 100)}${String(opts.serial).padStart(4, '0')}`;
}
