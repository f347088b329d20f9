// What synthetic clinical data is made of (synth.ts): the clinics of an outpatient department, a small
// list of common outpatient ICD-10 codes with the complaint and plan a note would say for each, which
// codes each clinic sees, and common allergens. Built in, so that development data and benchmarks do
// not wait for the full ICD-10 list; the codes are inserted into records.kode only where missing.
import type pg from 'pg';

export const SYNTH_CLINICS = [
  { kode: 'UMUM', nama: 'Poli Umum' },
  { kode: 'ANAK', nama: 'Poli Anak' },
  { kode: 'PD', nama: 'Poli Penyakit Dalam' },
  { kode: 'GIGI', nama: 'Poli Gigi' },
  { kode: 'KIA', nama: 'Poli KIA' },
  { kode: 'MATA', nama: 'Poli Mata' },
  { kode: 'THT', nama: 'Poli THT' },
  { kode: 'KULIT', nama: 'Poli Kulit dan Kelamin' },
];

/** Below this age a patient is a child: seen at the children's clinic, never with an adult's chronic disease. */
export const CHILD_YEARS = 18;
/**
 * Whether a patient born on `birth` is still a child on `on` (SQL date expressions). Compared as dates:
 * `age(...) < interval '18 years'` counts a month as 30 days and takes some on the eve of their
 * eighteenth birthday for adults.
 */
export const isChildSql = (birth: string, on: string) => `(${birth} > ${on} - interval '${CHILD_YEARS} years')`;

/** [code, English display, Indonesian display, the complaint (S), the plan (P)] */
export const SYNTH_CODES: [string, string, string, string, string][] = [
  [
    'J06.9',
    'Acute upper respiratory infection, unspecified',
    'Infeksi saluran pernapasan atas akut',
    'Demam, batuk, pilek sejak 3 hari',
    'Parasetamol 3x500 mg, banyak minum, istirahat',
  ],
  [
    'A09',
    'Diarrhoea and gastroenteritis of presumed infectious origin',
    'Diare dan gastroenteritis',
    'BAB cair 5 kali sehari sejak 2 hari, mual',
    'Oralit, zinc 1x20 mg 10 hari, kembali bila lemas',
  ],
  ['A01.0', 'Typhoid fever', 'Demam tifoid', 'Demam naik turun 6 hari, nyeri perut', 'Cek Tubex, antibiotik, kontrol 3 hari'],
  [
    'A90',
    'Dengue fever [classical dengue]',
    'Demam dengue',
    'Demam tinggi mendadak 2 hari, nyeri otot',
    'Darah lengkap serial, cairan oral cukup, kontrol besok',
  ],
  [
    'J18.9',
    'Pneumonia, unspecified',
    'Pneumonia',
    'Demam, batuk berdahak, sesak sejak 4 hari',
    'Foto toraks, antibiotik oral, kontrol 3 hari',
  ],
  ['J02.9', 'Acute pharyngitis, unspecified', 'Faringitis akut', 'Nyeri menelan sejak 2 hari', 'Kumur air garam, parasetamol bila demam'],
  ['J20.9', 'Acute bronchitis, unspecified', 'Bronkitis akut', 'Batuk berdahak 1 minggu', 'Mukolitik, banyak minum, kontrol bila sesak'],
  ['J45.9', 'Asthma, unspecified', 'Asma', 'Sesak dan mengi kambuh malam hari', 'Salbutamol inhaler, hindari pencetus, kontrol 2 minggu'],
  [
    'I10',
    'Essential (primary) hypertension',
    'Hipertensi esensial (primer)',
    'Kontrol tekanan darah, kadang pusing',
    'Amlodipin 1x5 mg lanjut, diet rendah garam, kontrol 1 bulan',
  ],
  [
    'E11.9',
    'Type 2 diabetes mellitus without complications',
    'Diabetes melitus tipe 2 tanpa komplikasi',
    'Kontrol gula darah, sering haus',
    'Metformin 2x500 mg lanjut, cek HbA1c, diet',
  ],
  ['E78.5', 'Hyperlipidaemia, unspecified', 'Hiperlipidemia', 'Kontrol kolesterol', 'Simvastatin 1x20 mg malam, olahraga teratur'],
  ['E66.9', 'Obesity, unspecified', 'Obesitas', 'Ingin menurunkan berat badan', 'Diet seimbang, aktivitas fisik 150 menit seminggu'],
  ['K29.7', 'Gastritis, unspecified', 'Gastritis', 'Nyeri ulu hati dan mual', 'Antasida, omeprazol 1x20 mg, makan teratur'],
  ['K30', 'Functional dyspepsia', 'Dispepsia fungsional', 'Perut kembung dan cepat kenyang', 'Makan porsi kecil, hindari pedas, antasida'],
  ['M54.5', 'Low back pain', 'Nyeri punggung bawah', 'Nyeri pinggang setelah mengangkat beban', 'Analgesik, kompres hangat, peregangan'],
  ['M79.1', 'Myalgia', 'Mialgia', 'Pegal dan nyeri otot', 'Analgesik, istirahat cukup'],
  ['R51', 'Headache', 'Sakit kepala', 'Sakit kepala sejak kemarin', 'Parasetamol bila perlu, tidur cukup'],
  [
    'N39.0',
    'Urinary tract infection, site not specified',
    'Infeksi saluran kemih',
    'Nyeri saat berkemih dan anyang-anyangan',
    'Urinalisis, antibiotik, banyak minum air putih',
  ],
  ['K02.9', 'Dental caries, unspecified', 'Karies gigi', 'Gigi berlubang terasa ngilu', 'Penambalan gigi, sikat gigi 2 kali sehari'],
  [
    'K04.7',
    'Periapical abscess without sinus',
    'Abses periapikal tanpa sinus',
    'Gusi bengkak dan nyeri',
    'Drainase, antibiotik, kontrol 1 minggu',
  ],
  ['K05.1', 'Chronic gingivitis', 'Gingivitis kronis', 'Gusi mudah berdarah', 'Skeling, obat kumur'],
  [
    'Z34.9',
    'Supervision of normal pregnancy, unspecified',
    'Pengawasan kehamilan normal',
    'Periksa kehamilan rutin',
    'Tablet tambah darah, USG, kontrol 4 minggu',
  ],
  ['N76.0', 'Acute vaginitis', 'Vaginitis akut', 'Keputihan dan gatal', 'Pemeriksaan sekret, obat antijamur'],
  ['H10.9', 'Conjunctivitis, unspecified', 'Konjungtivitis', 'Mata merah dan berair', 'Tetes mata antibiotik, jangan dikucek'],
  ['H52.4', 'Presbyopia', 'Presbiopia', 'Sulit membaca jarak dekat', 'Resep kacamata baca'],
  ['H66.9', 'Otitis media, unspecified', 'Otitis media', 'Nyeri telinga dan demam', 'Antibiotik, analgesik, kontrol 1 minggu'],
  [
    'J01.9',
    'Acute sinusitis, unspecified',
    'Sinusitis akut',
    'Hidung tersumbat dan nyeri wajah',
    'Dekongestan, cuci hidung, kontrol bila memburuk',
  ],
  ['L30.9', 'Dermatitis, unspecified', 'Dermatitis', 'Ruam gatal di lengan', 'Krim kortikosteroid, hindari pencetus'],
  ['B35.4', 'Tinea corporis', 'Tinea korporis', 'Bercak merah bersisik dan gatal', 'Krim antijamur 2 minggu, jaga kulit kering'],
  ['L70.0', 'Acne vulgaris', 'Akne vulgaris', 'Jerawat di wajah', 'Krim topikal, cuci muka 2 kali sehari'],
  [
    'Z00.0',
    'General adult medical examination',
    'Pemeriksaan kesehatan umum',
    'Pemeriksaan kesehatan rutin',
    'Hasil baik, pola hidup sehat',
  ],
];

/** The codes each clinic gives as the primary diagnosis (a code twice is twice as common). */
export const CLINIC_CODES: Record<string, string[]> = {
  UMUM: ['J06.9', 'J06.9', 'K29.7', 'K30', 'M54.5', 'R51', 'N39.0', 'J02.9', 'M79.1', 'Z00.0', 'E11.9'],
  ANAK: ['J06.9', 'J06.9', 'A09', 'J20.9', 'J45.9', 'H66.9', 'L30.9', 'J02.9'],
  PD: ['E11.9', 'E11.9', 'E78.5', 'K29.7', 'J45.9', 'E66.9', 'N39.0'],
  GIGI: ['K02.9', 'K02.9', 'K04.7', 'K05.1'],
  KIA: ['Z34.9', 'Z34.9', 'Z34.9', 'N76.0'],
  MATA: ['H10.9', 'H52.4'],
  THT: ['H66.9', 'J01.9', 'J02.9'],
  KULIT: ['L30.9', 'B35.4', 'L70.0'],
};
/** A febrile visit's primary diagnosis. */
export const FEVER_CODES = ['J06.9', 'J06.9', 'J06.9', 'J06.9', 'A09', 'A09', 'A01.0', 'A90', 'J18.9', 'J02.9'];
/** Secondary diagnoses: what outpatients commonly have besides. */
export const SECONDARY_CODES = ['E11.9', 'E78.5', 'E66.9', 'K30', 'M54.5', 'E11.9'];

/** [substance, category, criticality, reaction] */
export const ALLERGENS: [string, string, string, string][] = [
  ['Amoksisilin', 'medication', 'high', 'Ruam kulit dan gatal'],
  ['Penisilin', 'medication', 'high', 'Urtikaria dan sesak napas'],
  ['Kotrimoksazol', 'medication', 'low', 'Ruam'],
  ['Ibuprofen', 'medication', 'low', 'Bengkak kelopak mata'],
  ['Asam mefenamat', 'medication', 'low', 'Gatal'],
  ['Udang', 'food', 'low', 'Gatal dan bentol'],
  ['Kacang tanah', 'food', 'high', 'Bengkak bibir dan sesak'],
  ['Telur', 'food', 'low', 'Ruam'],
  ['Debu rumah', 'environment', 'low', 'Bersin dan hidung tersumbat'],
  ['Sengatan lebah', 'environment', 'high', 'Bengkak luas'],
];

/** Inserts the built-in codes that records.kode lacks; a loaded code list is left as it is. */
export async function ensureCodes(owner: pg.ClientBase): Promise<void> {
  await owner.query(
    `insert into records.kode (system, code, display_en, display_id)
     select 'icd-10', c.code, c.en, c.id from unnest($1::text[], $2::text[], $3::text[]) as c(code, en, id)
     on conflict (system, code) do nothing`,
    [SYNTH_CODES.map((c) => c[0]), SYNTH_CODES.map((c) => c[1]), SYNTH_CODES.map((c) => c[2])],
  );
}
