// Deterministic synthetic patients for development and benchmarks: Indonesian names, places and
// addresses, NIKs that pass validation (province and district codes, birth date, +40 for women).
// Nothing here is real data; the same seed always gives the same patients. The package exports this
// module (`@simrs/records/synth`) for the bench, which loads patients in bulk.
import { makeNik } from './nik.ts';
import type { CreatePasienInput } from './schema.ts';

export const MALE = [
  'Budi',
  'Agus',
  'Ahmad',
  'Muhammad',
  'Rizki',
  'Dedi',
  'Eko',
  'Hendra',
  'Joko',
  'Bambang',
  'Slamet',
  'Wahyu',
  'Andi',
  'Fajar',
  'Yusuf',
  'Arif',
  'Rudi',
  'Taufik',
  'Irfan',
  'Bayu',
  'Dimas',
  'Gilang',
  'Hadi',
  'Imam',
  'Kurniawan',
  'Made',
  'Nyoman',
  'Putu',
  'Ketut',
  'Wayan',
  'Teguh',
  'Surya',
  'Yoga',
  'Rahmat',
  'Hasan',
  'Ilham',
  'Reza',
  'Adi',
  'Doni',
  'Galih',
];
export const FEMALE = [
  'Siti',
  'Sri',
  'Dewi',
  'Ayu',
  'Nur',
  'Rina',
  'Wulan',
  'Fitri',
  'Indah',
  'Lestari',
  'Ratna',
  'Yuni',
  'Putri',
  'Dian',
  'Intan',
  'Maya',
  'Nia',
  'Rahma',
  'Sari',
  'Tuti',
  'Ani',
  'Eka',
  'Kartika',
  'Lina',
  'Mega',
  'Novi',
  'Oktavia',
  'Purwanti',
  'Ratih',
  'Wati',
  'Yulia',
  'Zahra',
  'Annisa',
  'Aisyah',
  'Fatimah',
  'Khadijah',
  'Nurul',
  'Retno',
  'Endang',
  'Kadek',
];
export const FAMILY = [
  'Santoso',
  'Wijaya',
  'Saputra',
  'Hidayat',
  'Pratama',
  'Kusuma',
  'Setiawan',
  'Nugroho',
  'Purnomo',
  'Susanto',
  'Gunawan',
  'Siregar',
  'Nasution',
  'Harahap',
  'Lubis',
  'Simanjuntak',
  'Sitompul',
  'Pane',
  'Tanjung',
  'Rangkuti',
  'Wibowo',
  'Prasetyo',
  'Utomo',
  'Hakim',
  'Firmansyah',
  'Ramadhan',
  'Maulana',
  'Permana',
  'Suryadi',
  'Halim',
  'Rahayu',
  'Wulandari',
  'Handayani',
  'Anggraini',
  'Puspita',
  'Safitri',
  'Maharani',
  'Lestari',
  'Suryani',
  'Kurniasih',
  'Sembiring',
  'Ginting',
  'Tarigan',
  'Manurung',
  'Pohan',
  'Daulay',
  'Lim',
  'Tan',
  'Sinaga',
  'Tambunan',
];

/** [city or regency, province name, province code, regency code] */
export const PLACES: [string, string, string, number][] = [
  ['Kota Bandung', 'Jawa Barat', '32', 73],
  ['Kabupaten Bogor', 'Jawa Barat', '32', 1],
  ['Kota Bekasi', 'Jawa Barat', '32', 75],
  ['Kota Jakarta Selatan', 'DKI Jakarta', '31', 74],
  ['Kota Jakarta Timur', 'DKI Jakarta', '31', 75],
  ['Kota Surabaya', 'Jawa Timur', '35', 78],
  ['Kota Malang', 'Jawa Timur', '35', 73],
  ['Kota Semarang', 'Jawa Tengah', '33', 74],
  ['Kabupaten Sleman', 'DI Yogyakarta', '34', 4],
  ['Kota Yogyakarta', 'DI Yogyakarta', '34', 71],
  ['Kota Medan', 'Sumatera Utara', '12', 71],
  ['Kota Palembang', 'Sumatera Selatan', '16', 71],
  ['Kota Makassar', 'Sulawesi Selatan', '73', 71],
  ['Kota Denpasar', 'Bali', '51', 71],
  ['Kota Tangerang', 'Banten', '36', 71],
  ['Kota Padang', 'Sumatera Barat', '13', 71],
  ['Kota Pontianak', 'Kalimantan Barat', '61', 71],
  ['Kota Manado', 'Sulawesi Utara', '71', 71],
  ['Kota Mataram', 'Nusa Tenggara Barat', '52', 71],
  ['Kota Banda Aceh', 'Aceh', '11', 71],
];
export const STREETS = [
  'Jl. Merdeka',
  'Jl. Sudirman',
  'Jl. Diponegoro',
  'Jl. Gatot Subroto',
  'Jl. Ahmad Yani',
  'Jl. Pahlawan',
  'Jl. Kartini',
  'Jl. Imam Bonjol',
  'Jl. Hasanuddin',
  'Jl. Pemuda',
  'Jl. Veteran',
  'Jl. Cendrawasih',
  'Jl. Melati',
  'Jl. Mawar',
  'Jl. Kenanga',
  'Gg. Masjid',
  'Jl. Raya Pos',
  'Jl. Siliwangi',
];
export const KELURAHAN = [
  'Sukajadi',
  'Cempaka Putih',
  'Kebon Jeruk',
  'Menteng',
  'Tegalsari',
  'Sukamaju',
  'Mekarsari',
  'Margahayu',
  'Sumbersari',
  'Karangasem',
  'Pasar Baru',
  'Tanjung Priok',
];
export const KECAMATAN = [
  'Coblong',
  'Sukasari',
  'Cidadap',
  'Tebet',
  'Gubeng',
  'Lowokwaru',
  'Banyumanik',
  'Depok',
  'Medan Baru',
  'Ilir Timur',
  'Panakkukang',
  'Denpasar Barat',
];
export const PEKERJAAN = [
  'Pegawai Negeri Sipil',
  'Karyawan Swasta',
  'Wiraswasta',
  'Petani',
  'Nelayan',
  'Guru',
  'Pedagang',
  'Ibu Rumah Tangga',
  'Pelajar/Mahasiswa',
  'Pensiunan',
  'Buruh',
  'Dokter',
  'Perawat',
  'TNI/Polri',
];
const AGAMA = ['Islam', 'Islam', 'Islam', 'Islam', 'Islam', 'Islam', 'Kristen', 'Katolik', 'Hindu', 'Buddha', 'Konghucu'] as const;
const KAWIN = ['Belum Kawin', 'Kawin', 'Kawin', 'Kawin', 'Cerai Hidup', 'Cerai Mati'] as const;
const DARAH = ['A', 'B', 'AB', 'O', 'O'] as const;

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;

/** Patient number `i` (0-based) of the stream for `seed`. Distinct i give distinct NIKs. */
export function syntheticPasien(seed: number, i: number): CreatePasienInput {
  const rand = prng(seed * 1_000_003 + i);
  const female = rand() < 0.5;
  const jenisKelamin = female ? 'P' : 'L';
  const first = pick(rand, female ? FEMALE : MALE);
  const middle = rand() < 0.3 ? ` ${pick(rand, female ? FEMALE : MALE)}` : '';
  const nama = rand() < 0.15 ? `${first}${middle}` : `${first}${middle} ${pick(rand, FAMILY)}`;
  const [kota, provinsi, provinceCode, regency] = pick(rand, PLACES);
  const birthPlace = pick(rand, PLACES)[0].replace(/^(Kota|Kabupaten) /, '');
  const start = Date.UTC(1940, 0, 1);
  const end = Date.UTC(2024, 11, 31);
  const tanggalLahir = new Date(start + Math.floor(rand() * (end - start))).toISOString().slice(0, 10);
  const district = 1 + (i % 40);
  const serial = 1 + (Math.floor(i / 40) % 9999);
  const nik = makeNik({ province: provinceCode, regency, district, tanggalLahir, jenisKelamin, serial });
  const adult = Number(tanggalLahir.slice(0, 4)) < 2006;
  const phone = `08${1 + Math.floor(rand() * 9)}${String(Math.floor(rand() * 1e9)).padStart(9, '0')}`;
  return {
    nik,
    nama,
    tempatLahir: birthPlace,
    tanggalLahir,
    jenisKelamin,
    golonganDarah: rand() < 0.8 ? pick(rand, DARAH) : null,
    rhesus: rand() < 0.5 ? '+' : null,
    agama: pick(rand, AGAMA),
    statusPerkawinan: adult ? pick(rand, KAWIN) : 'Belum Kawin',
    pekerjaan: adult ? pick(rand, PEKERJAAN) : 'Pelajar/Mahasiswa',
    namaIbu: `${pick(rand, FEMALE)} ${pick(rand, FAMILY)}`,
    alamat: `${pick(rand, STREETS)} No. ${1 + Math.floor(rand() * 200)}`,
    rt: String(1 + Math.floor(rand() * 15)).padStart(3, '0'),
    rw: String(1 + Math.floor(rand() * 10)).padStart(3, '0'),
    kelurahan: pick(rand, KELURAHAN),
    kecamatan: pick(rand, KECAMATAN),
    kotaKabupaten: kota,
    provinsi,
    kodePos: String(10000 + Math.floor(rand() * 89999)),
    telepon: phone,
    noBpjs: rand() < 0.7 ? `000${String(Math.floor(rand() * 1e10)).padStart(10, '0')}` : null,
  };
}
