// The two tools that gather from several procedures: the patient summary and a visit's details. The
// clinical reads go first, one by one, so that a caller the matrix or the need-to-know check refuses
// is refused before anything else of the patient is read (each procedure writes its own audit row).
import type { RecordsCalls } from './calls.ts';
import { allergy, demographics, diagnosis, latestPerSign, note, visit, vitalSign } from './shapes.ts';
import { ToolInputError } from './tools-error.ts';

const IN_FORCE = new Set(['active', 'recurrence', 'relapse']);

async function patientIdOf(calls: RecordsCalls, input: { pasienId?: string; nik?: string }): Promise<string> {
  if (input.pasienId) return input.pasienId;
  const found = (await calls.pasien.list({ nik: input.nik!, limit: 1 })).items[0];
  if (!found) throw new ToolInputError('no patient of this hospital has that NIK: check the digits, or search by name with find_patients');
  return found.id;
}

export async function patientSummary(calls: RecordsCalls, input: { pasienId?: string; nik?: string; visits: number }) {
  const pasienId = await patientIdOf(calls, input);
  const allergies = await calls.alergi.list({ pasienId, limit: 50 });
  const [problems, vitals, visits, patient] = await Promise.all([
    calls.diagnosis.list({ pasienId, limit: 100 }),
    calls.vital.list({ pasienId, limit: 50 }),
    calls.kunjungan.list({ pasienId, limit: input.visits }),
    calls.pasien.get({ id: pasienId }),
  ]);
  return {
    patient: demographics(patient, input.nik !== undefined),
    allergies: allergies.filter((e) => !e.enteredInError).map(allergy),
    activeProblems: problems.filter((e) => !e.enteredInError && IN_FORCE.has(String(e.isi.clinicalStatus))).map(diagnosis),
    lastVitalSigns: latestPerSign(vitals).map(vitalSign),
    lastVisits: visits.map(visit),
  };
}

export async function visitDetails(calls: RecordsCalls, kunjunganId: string) {
  const vitals = await calls.vital.list({ kunjunganId, limit: 100 });
  const [diagnoses, notes, found] = await Promise.all([
    calls.diagnosis.list({ kunjunganId, limit: 50 }),
    calls.catatan.list({ kunjunganId, limit: 1 }),
    calls.kunjungan.get({ id: kunjunganId }),
  ]);
  return {
    visit: { ...visit(found), pasienId: found.pasienId, mrn: found.noRm, name: found.pasienNama },
    statusHistory: found.statusHistory.map((s) => ({ status: s.status, at: s.at, reason: s.reason })),
    vitalSigns: vitals.filter((e) => !e.enteredInError).map(vitalSign),
    diagnoses: diagnoses.filter((e) => !e.enteredInError).map(diagnosis),
    note: notes[0] && !notes[0].enteredInError ? note(notes[0]) : null,
  };
}
