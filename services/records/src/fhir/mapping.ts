// The patient record as a FHIR R4 Patient and back: one mapping, both ways. toPatient renders what
// records stores; fromPatient reads a Patient into the record's fields, refusing (with an
// OperationOutcome naming each element) whatever the record has no place for rather than dropping it,
// and then applies the same field rules as tRPC and REST (pasien/schema.ts). What follows SATUSEHAT's
// Patient profile, what is HL7's, what is SIMRS's own and what is left out: README.md ("FHIR R4").
import { AGAMA, createPasienInput, GOLONGAN_DARAH, RHESUS, STATUS_PERKAWINAN, WRITABLE } from '../pasien/index.ts';
import type { CreatePasienInput, Pasien } from '../pasien/index.ts';
import { FhirError } from './outcome.ts';
import type { FieldPaths, Issue } from './outcome.ts';

export const NIK_SYSTEM = 'https://fhir.kemkes.go.id/id/nik';
/** The hospital's medical record number: unique per hospital, so the system names the hospital. */
export const mrSystem = (tenantId: string) => `https://simrs.id/fhir/sid/mr/${encodeURIComponent(tenantId)}`;
export const BPJS_SYSTEM = 'https://simrs.id/fhir/sid/bpjs';

const SIMRS_SD = 'https://simrs.id/fhir/StructureDefinition/';
export const EXT = {
  birthPlace: 'https://fhir.kemkes.go.id/r4/StructureDefinition/birthPlace',
  religion: 'http://hl7.org/fhir/StructureDefinition/patient-religion',
  mothersMaidenName: 'http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName',
  pekerjaan: `${SIMRS_SD}pekerjaan`,
  golonganDarah: `${SIMRS_SD}golongan-darah`,
  rhesus: `${SIMRS_SD}rhesus`,
  kelurahan: `${SIMRS_SD}kelurahan`,
  rt: `${SIMRS_SD}rt`,
  rw: `${SIMRS_SD}rw`,
} as const;

const MR_TYPE = { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'MR', display: 'Medical record number' }] };
const MARITAL_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus';
const MARITAL: Record<string, [string, string]> = {
  'Belum Kawin': ['S', 'Never Married'],
  Kawin: ['M', 'Married'],
  'Cerai Hidup': ['D', 'Divorced'],
  'Cerai Mati': ['W', 'Widowed'],
};
const RELIGION_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v3-ReligiousAffiliation';
/** HL7 v3 ReligiousAffiliation has no general Buddhism and no Indonesian native faith: those go as text only. */
const RELIGION: Record<string, [string, string]> = {
  Islam: ['1023', 'Islam'],
  Kristen: ['1077', 'Protestant'],
  Katolik: ['1041', 'Roman Catholic Church'],
  Hindu: ['1020', 'Hinduism'],
  Konghucu: ['1014', 'Confucianism'],
};

type Json = Record<string, unknown>;

/** The Patient for a stored record. Optional fields the record lacks are left out, never emptied. */
export function toPatient(p: Pasien, tenantId: string): Json {
  const ext: Json[] = [{ url: EXT.birthPlace, valueAddress: { city: p.tempatLahir } }];
  if (p.agama) {
    const coded = RELIGION[p.agama];
    ext.push({
      url: EXT.religion,
      valueCodeableConcept: {
        ...(coded ? { coding: [{ system: RELIGION_SYSTEM, code: coded[0], display: coded[1] }] } : {}),
        text: p.agama,
      },
    });
  }
  if (p.namaIbu) ext.push({ url: EXT.mothersMaidenName, valueString: p.namaIbu });
  if (p.pekerjaan) ext.push({ url: EXT.pekerjaan, valueString: p.pekerjaan });
  if (p.golonganDarah) ext.push({ url: EXT.golonganDarah, valueCode: p.golonganDarah });
  if (p.rhesus) ext.push({ url: EXT.rhesus, valueCode: p.rhesus });

  const identifier: Json[] = [
    { use: 'official', system: NIK_SYSTEM, value: p.nik },
    { use: 'usual', type: MR_TYPE, system: mrSystem(tenantId), value: p.noRm },
  ];
  if (p.noBpjs) identifier.push({ use: 'secondary', system: BPJS_SYSTEM, value: p.noBpjs });

  const addressExt: Json[] = [];
  if (p.kelurahan) addressExt.push({ url: EXT.kelurahan, valueString: p.kelurahan });
  if (p.rt) addressExt.push({ url: EXT.rt, valueString: p.rt });
  if (p.rw) addressExt.push({ url: EXT.rw, valueString: p.rw });
  const address: Json = {
    ...(addressExt.length ? { extension: addressExt } : {}),
    use: 'home',
    line: [p.alamat],
    city: p.kotaKabupaten,
    ...(p.kecamatan ? { district: p.kecamatan } : {}),
    state: p.provinsi,
    ...(p.kodePos ? { postalCode: p.kodePos } : {}),
    country: 'ID',
  };
  const marital = p.statusPerkawinan ? MARITAL[p.statusPerkawinan] : undefined;

  return {
    resourceType: 'Patient',
    id: p.id,
    meta: { versionId: String(p.version), lastUpdated: p.updatedAt },
    extension: ext,
    identifier,
    active: p.status === 'active',
    name: [{ use: 'official', text: p.nama }],
    ...(p.telepon ? { telecom: [{ system: 'phone', value: p.telepon, use: /^\+628/.test(p.telepon) ? 'mobile' : 'home' }] } : {}),
    gender: p.jenisKelamin === 'P' ? 'female' : 'male',
    birthDate: p.tanggalLahir,
    address: [address],
    ...(p.statusPerkawinan
      ? {
          maritalStatus: {
            ...(marital ? { coding: [{ system: MARITAL_SYSTEM, code: marital[0], display: marital[1] }] } : {}),
            text: p.statusPerkawinan,
          },
        }
      : {}),
  };
}

/** Where each record field lives in a Patient: the expression of an issue about it. */
export const FIELD_PATHS: FieldPaths = {
  nik: 'Patient.identifier',
  noBpjs: 'Patient.identifier',
  nama: 'Patient.name[0]',
  tempatLahir: 'Patient.extension',
  tanggalLahir: 'Patient.birthDate',
  jenisKelamin: 'Patient.gender',
  alamat: 'Patient.address[0].line',
  kotaKabupaten: 'Patient.address[0].city',
  kecamatan: 'Patient.address[0].district',
  provinsi: 'Patient.address[0].state',
  kodePos: 'Patient.address[0].postalCode',
  kelurahan: 'Patient.address[0].extension',
  rt: 'Patient.address[0].extension',
  rw: 'Patient.address[0].extension',
  telepon: 'Patient.telecom',
  statusPerkawinan: 'Patient.maritalStatus',
  agama: 'Patient.extension',
  namaIbu: 'Patient.extension',
  pekerjaan: 'Patient.extension',
  golonganDarah: 'Patient.extension',
  rhesus: 'Patient.extension',
  cursor: '_cursor',
};

/** Patient elements read (or deliberately ignored: id, meta, text, language) by fromPatient. */
const READ = new Set([
  'resourceType',
  'id',
  'meta',
  'text',
  'language',
  'identifier',
  'active',
  'name',
  'telecom',
  'gender',
  'birthDate',
  'address',
  'maritalStatus',
  'extension',
]);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const arr = (v: unknown): Json[] | undefined => (Array.isArray(v) ? (v as Json[]) : undefined);
const obj = (v: unknown): Json | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined);

/**
 * The record's fields from a Patient (every writable field; absent optional ones as null, so an update
 * replaces the whole record as FHIR's update does). Throws a 400 FhirError listing every problem.
 */
export function fromPatient(resource: Json, tenantId: string): CreatePasienInput {
  const issues: Issue[] = [];
  const refuse = (expression: string, diagnostics: string, code: Issue['code'] = 'not-supported') =>
    issues.push({ severity: 'error', code, diagnostics, expression: [expression] });
  const out: Record<string, string | null | undefined> = {};

  if (resource.resourceType !== 'Patient')
    throw new FhirError(400, 'invalid', 'the resource must be a Patient', { expression: ['resourceType'] });
  for (const key of Object.keys(resource)) {
    if (!READ.has(key)) refuse(`Patient.${key}`, `Patient.${key} is not supported: the patient record has no place for it`);
  }
  if (resource.active === false)
    refuse('Patient.active', 'a patient is made inactive by deleting it (DELETE Patient/[id]), which archives it', 'invalid');

  readIdentifiers(arr(resource.identifier) ?? [], mrSystem(tenantId), out, refuse);
  if (out.nik === undefined) refuse('Patient.identifier', `a NIK identifier (system ${NIK_SYSTEM}) is required`, 'required');

  readName(arr(resource.name) ?? [], out, refuse);
  if (out.nama === undefined) refuse('Patient.name', 'a name (name.text, or given and family) is required', 'required');

  (arr(resource.telecom) ?? []).forEach((t, i) => {
    if (t.system !== 'phone') refuse(`Patient.telecom[${i}]`, 'the record holds a phone number only');
    else if (out.telepon !== undefined) refuse(`Patient.telecom[${i}]`, 'the record holds one phone number');
    else out.telepon = str(t.value) ?? '';
  });

  readGender(resource.gender, out, refuse);
  if (resource.birthDate === undefined) refuse('Patient.birthDate', 'birthDate is required', 'required');
  else out.tanggalLahir = typeof resource.birthDate === 'string' ? resource.birthDate : '';

  readAddress(arr(resource.address) ?? [], out, refuse);
  readMarital(obj(resource.maritalStatus), out, refuse);
  readExtensions(arr(resource.extension) ?? [], out, refuse);
  if (out.tempatLahir === undefined)
    refuse('Patient.extension', `the place of birth is required (extension ${EXT.birthPlace}, valueAddress.city)`, 'required');

  if (issues.length) throw new FhirError(400, 'invalid', issues[0]!.diagnostics, { issues });
  const candidate: Record<string, unknown> = {};
  for (const field of WRITABLE) candidate[field] = out[field] ?? null;
  const parsed = createPasienInput.safeParse(candidate);
  if (!parsed.success) {
    const found = parsed.error.issues.map((i): Issue => ({
      severity: 'error',
      code: 'value',
      diagnostics: i.message,
      expression: [FIELD_PATHS[String(i.path[0])] ?? 'Patient'],
    }));
    throw new FhirError(400, 'invalid', found[0]!.diagnostics, { issues: found });
  }
  return parsed.data;
}

type Refuse = (expression: string, diagnostics: string, code?: Issue['code']) => void;

function readIdentifiers(identifiers: Json[], mr: string, out: Record<string, string | null | undefined>, refuse: Refuse): void {
  identifiers.forEach((id, i) => {
    const system = str(id.system);
    const value = str(id.value);
    const at = `Patient.identifier[${i}]`;
    if (system === NIK_SYSTEM) {
      if (out.nik !== undefined) refuse(at, 'the record holds one NIK');
      out.nik = value ?? '';
    } else if (system === BPJS_SYSTEM) {
      if (out.noBpjs !== undefined) refuse(at, 'the record holds one BPJS number');
      out.noBpjs = value ?? '';
    } else if (system !== mr)
      refuse(
        at,
        `identifier system ${system ?? '(none)'} is not held: NIK (${NIK_SYSTEM}), BPJS (${BPJS_SYSTEM}) and this hospital's medical record number (assigned by the server) are`,
      );
  });
}

function readName(names: Json[], out: Record<string, string | null | undefined>, refuse: Refuse): void {
  if (names.length > 1) refuse('Patient.name', 'the record holds one name');
  const name = names[0];
  if (name) {
    const parts = [arr(name.prefix), arr(name.given), [name.family], arr(name.suffix)].flatMap((a) =>
      (a ?? []).map(str).filter((s): s is string => s !== undefined),
    );
    out.nama = str(name.text) ?? (parts.length ? parts.join(' ') : undefined);
  }
}

function readGender(gender: unknown, out: Record<string, string | null | undefined>, refuse: Refuse): void {
  if (gender === 'male') out.jenisKelamin = 'L';
  else if (gender === 'female') out.jenisKelamin = 'P';
  else if (gender === undefined) refuse('Patient.gender', 'gender is required (male or female)', 'required');
  else refuse('Patient.gender', 'the record holds male or female only', 'value');
}

function readAddress(addresses: Json[], out: Record<string, string | null | undefined>, refuse: Refuse): void {
  if (addresses.length === 0) return refuse('Patient.address', 'an address (line, city, state) is required', 'required');
  if (addresses.length > 1) refuse('Patient.address', 'the record holds one address');
  const a = addresses[0]!;
  const lines = (arr(a.line) ?? []).map(str).filter((s): s is string => s !== undefined);
  out.alamat = lines.length ? lines.join(', ') : str(a.text);
  out.kotaKabupaten = str(a.city);
  out.provinsi = str(a.state);
  out.kecamatan = str(a.district);
  out.kodePos = str(a.postalCode);
  if (a.country !== undefined && !['ID', 'IDN', 'Indonesia'].includes(String(a.country)))
    refuse('Patient.address[0].country', 'the record holds addresses in Indonesia (country ID)', 'value');
  for (const key of ['alamat', 'kotaKabupaten', 'provinsi'] as const) {
    if (out[key] === undefined)
      refuse(FIELD_PATHS[key]!, `address ${{ alamat: 'line', kotaKabupaten: 'city', provinsi: 'state' }[key]} is required`, 'required');
  }
  for (const key of Object.keys(a))
    if (!['use', 'type', 'text', 'line', 'city', 'district', 'state', 'postalCode', 'country', 'period', 'extension', 'id'].includes(key))
      refuse(`Patient.address[0].${key}`, `address ${key} is not held by the record`);
  (arr(a.extension) ?? []).forEach((e, i) => {
    const field = e.url === EXT.kelurahan ? 'kelurahan' : e.url === EXT.rt ? 'rt' : e.url === EXT.rw ? 'rw' : undefined;
    if (!field)
      return refuse(
        `Patient.address[0].extension[${i}]`,
        `address extension ${String(e.url)} is not held by the record (kelurahan, rt and rw are, as ${EXT.kelurahan}, ${EXT.rt}, ${EXT.rw})`,
      );
    out[field] = str(e.valueString) ?? '';
  });
}

function readMarital(m: Json | undefined, out: Record<string, string | null | undefined>, refuse: Refuse): void {
  if (!m) return;
  const fromCode = (arr(m.coding) ?? [])
    .map((c) => (c.system === MARITAL_SYSTEM ? Object.entries(MARITAL).find(([, v]) => v[0] === c.code)?.[0] : undefined))
    .find(Boolean);
  const fromText = typeof m.text === 'string' && (STATUS_PERKAWINAN as readonly string[]).includes(m.text) ? m.text : undefined;
  out.statusPerkawinan = fromText ?? fromCode;
  if (!out.statusPerkawinan)
    refuse(
      'Patient.maritalStatus',
      `marital status must be v3-MaritalStatus S, M, D or W, or text ${STATUS_PERKAWINAN.join(', ')}`,
      'value',
    );
}

type Out = Record<string, string | null | undefined>;
/** Reads one extension into the record's fields; `at` is its FHIRPath, for a refusal. */
type ExtensionReader = (e: Json, out: Out, refuse: Refuse, at: string) => void;

function readReligion(e: Json, out: Out, refuse: Refuse, at: string): void {
  const cc = obj(e.valueCodeableConcept);
  const byCode = (arr(cc?.coding) ?? [])
    .map((c) => (c.system === RELIGION_SYSTEM ? Object.entries(RELIGION).find(([, v]) => v[0] === c.code)?.[0] : undefined))
    .find(Boolean);
  const byText = typeof cc?.text === 'string' && (AGAMA as readonly string[]).includes(cc.text) ? cc.text : undefined;
  out.agama = byText ?? byCode;
  if (!out.agama) refuse(at, `religion must be one of ${AGAMA.join(', ')} (as text) or its v3-ReligiousAffiliation code`, 'value');
}

/** The Patient extensions the record holds, by URL. */
const EXTENSION_READERS = new Map<string, ExtensionReader>([
  [
    EXT.birthPlace,
    (e, out) => {
      const place = obj(e.valueAddress);
      out.tempatLahir = str(place?.city) ?? str(place?.text) ?? '';
    },
  ],
  [EXT.religion, readReligion],
  [EXT.mothersMaidenName, (e, out) => void (out.namaIbu = str(e.valueString) ?? '')],
  [EXT.pekerjaan, (e, out) => void (out.pekerjaan = str(e.valueString) ?? '')],
  [
    EXT.golonganDarah,
    (e, out, refuse, at) => {
      out.golonganDarah = String(e.valueCode ?? '');
      if (!(GOLONGAN_DARAH as readonly string[]).includes(out.golonganDarah))
        refuse(at, `blood group must be one of ${GOLONGAN_DARAH.join(', ')}`, 'value');
    },
  ],
  [
    EXT.rhesus,
    (e, out, refuse, at) => {
      out.rhesus = String(e.valueCode ?? '');
      if (!(RHESUS as readonly string[]).includes(out.rhesus)) refuse(at, 'rhesus must be + or -', 'value');
    },
  ],
]);

function readExtensions(extensions: Json[], out: Out, refuse: Refuse): void {
  extensions.forEach((e, i) => {
    const at = `Patient.extension[${i}]`;
    const read = EXTENSION_READERS.get(e.url as string);
    if (read) read(e, out, refuse, at);
    else refuse(at, `extension ${String(e.url)} is not held by the record`);
  });
}
