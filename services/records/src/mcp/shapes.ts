// What the tools answer: the least of each record an agent needs for the tool's purpose. Text that
// people wrote into the record (an allergy's substance and reaction, a diagnosis note, the visit's SOAP
// note) comes wrapped as `{ recordText }`: the tools' descriptions tell the agent that such values are
// data to report, never instructions to follow.
import { BLOOD_PRESSURE, vitalByLoinc } from '../klinis/index.ts';
import type { Entry } from '../klinis/index.ts';
import type { Kunjungan } from '../kunjungan/index.ts';
import type { Pasien } from '../pasien/index.ts';

/** Free text from the patient's record, labelled as such. */
export interface RecordText {
  recordText: string;
}

const recordText = (value: unknown): RecordText | null => (typeof value === 'string' && value !== '' ? { recordText: value } : null);

/** A patient to choose among search results: no address, no phone, no NIK unless the search was by NIK. */
export function patientChoice(p: Pasien, withNik: boolean) {
  return {
    pasienId: p.id,
    mrn: p.noRm,
    name: p.nama,
    birthDate: p.tanggalLahir,
    sex: p.jenisKelamin,
    status: p.status,
    ...(withNik ? { nik: p.nik } : {}),
  };
}

export function demographics(p: Pasien, withNik: boolean) {
  return {
    ...patientChoice(p, withNik),
    bloodType: p.golonganDarah ? `${p.golonganDarah}${p.rhesus ?? ''}` : null,
  };
}

export function allergy(e: Entry) {
  if (e.isi.noneKnown === true) return { noneKnown: true, recordedAt: e.waktu };
  return {
    substance: recordText(e.isi.substance),
    category: e.kategori,
    criticality: (e.isi.criticality as string | undefined) ?? null,
    reaction: recordText(e.isi.reaction),
    clinicalStatus: (e.isi.clinicalStatus as string | undefined) ?? null,
    recordedAt: e.waktu,
  };
}

export function diagnosis(e: Entry) {
  return {
    code: e.kode,
    display: (e.isi.display as string | undefined) ?? null,
    rank: e.peran,
    clinicalStatus: (e.isi.clinicalStatus as string | undefined) ?? null,
    note: recordText(e.isi.note),
    kunjunganId: e.kunjunganId,
    recordedAt: e.waktu,
  };
}

export function vitalSign(e: Entry) {
  if (e.kode === BLOOD_PRESSURE.loinc)
    return {
      sign: 'bloodPressure',
      name: 'Blood pressure',
      value: `${String(e.isi.sistolik)}/${String(e.isi.diastolik)}`,
      unit: e.isi.unit ?? null,
      flag: e.flag,
      at: e.waktu,
    };
  const sign = e.kode ? vitalByLoinc(e.kode) : undefined;
  return {
    sign: sign?.key ?? e.kode,
    name: sign?.display ?? null,
    value: e.isi.value,
    unit: e.isi.unit ?? null,
    flag: e.flag,
    at: e.waktu,
  };
}

export function note(e: Entry) {
  return {
    subjective: recordText(e.isi.subjective),
    objective: recordText(e.isi.objective),
    assessment: recordText(e.isi.assessment),
    plan: recordText(e.isi.plan),
    writtenAt: e.waktu,
  };
}

export function visit(k: Kunjungan) {
  return {
    kunjunganId: k.id,
    visitNumber: k.noKunjungan,
    date: k.tanggal,
    clinic: k.poliNama,
    poliId: k.poliId,
    queueNumber: k.noAntrean,
    status: k.status,
    startedAt: k.startedAt,
    endedAt: k.endedAt,
  };
}

/** A worklist row: the visit and who it is for, nothing clinical. */
export function worklistRow(k: Kunjungan) {
  return { ...visit(k), pasienId: k.pasienId, mrn: k.noRm, name: k.pasienNama };
}

/** The newest measurement of each sign, from entries newest first. */
export function latestPerSign(entries: Entry[]): Entry[] {
  const seen = new Set<string | null>();
  return entries.filter((e) => !e.enteredInError && !seen.has(e.kode) && seen.add(e.kode));
}
