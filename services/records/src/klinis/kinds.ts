// What each kind checks before an entry is written, and the columns it makes: vital signs (plausible,
// in their unit), diagnoses (a known, active ICD-10 code; one primary per visit), allergies (or the
// explicit "no known allergy"), and the visit's SOAP note (one per visit). Every surface (tRPC, REST,
// FHIR) writes through these, so a rule holds everywhere or nowhere.
import { TRPCError } from '@trpc/server';
import type { Querier } from '../db/index.ts';
import { badInput } from '../server/index.ts';
import type { z } from 'zod';
import type { alergiAmendInput, catatanAmendInput, diagnosisAmendInput, Prepared } from './schema.ts';
import type { Prepare } from './store.ts';
import { BLOOD_PRESSURE, prepareVitals, vitalByLoinc } from './vital.ts';
import type { Measurement } from './vital.ts';

/** SNOMED CT's "No known allergy": an explicit answer, unlike an empty list ("not yet asked"). */
export const NO_KNOWN_ALLERGY = { system: 'http://snomed.info/sct', code: '716186003', display: 'No known allergy' };

/**
 * Checked vital signs as the entries they make, with their flags by age (Prepared.byAge): the statement
 * that writes them flags each at the patient's age. Their problems as a 400.
 */
export function checkedVitals(measurements: readonly Measurement[], field = 'measurements'): Prepared[] {
  const prepared = prepareVitals(measurements, undefined, field);
  if (!Array.isArray(prepared)) throw badInput(prepared);
  return prepared;
}

export function vitalsPrepare(measurements: readonly Measurement[], field = 'measurements'): Prepare {
  return async (_q, _pasienId, current) => {
    await Promise.resolve();
    if (current) {
      // A correction keeps the sign: a blood pressure stays a blood pressure.
      const keys = current.kode === BLOOD_PRESSURE.loinc ? ['sistolik', 'diastolik'] : [vitalByLoinc(String(current.kode))?.key];
      const given = measurements.map((m) => m.key).sort();
      if (given.join() !== [...keys].sort().join())
        throw badInput({ [field]: [`this entry measures ${keys.join(' and ')}: correct those`] });
    }
    return checkedVitals(measurements, field);
  };
}

type DiagnosisFields = Omit<z.infer<typeof diagnosisAmendInput>, 'id' | 'expectedVersion' | 'reason'>;

/** The ICD-10 entries of `codes` that exist and are active. */
async function knownCodes(q: Querier, codes: string[]): Promise<Map<string, { en: string; id: string }>> {
  const rows = await q.query<{ code: string; display_en: string; display_id: string }>(
    "select code, display_en, display_id from records.kode where system = 'icd-10' and code = any($1::text[]) and active",
    [codes],
  );
  return new Map(rows.map((r) => [r.code, { en: r.display_en, id: r.display_id }]));
}

export function diagnosisPrepare(input: DiagnosisFields, kunjunganId?: string): Prepare {
  return async (q, _pasienId, current) => {
    const known = (await knownCodes(q, [input.code])).get(input.code);
    if (!known) throw badInput({ code: [`${input.code} is not a known ICD-10 code: pick one from the code list (kode.search)`] });
    const visit = kunjunganId ?? (current?.kunjungan_id as string | undefined);
    if (input.rank === 'primary' && current?.peran !== 'primary') {
      const [other] = await q.query(
        "select 1 from records.klinis where kunjungan_id = $1::uuid and jenis = 'diagnosis' and peran = 'primary' and not entered_in_error",
        [visit],
      );
      if (other)
        throw new TRPCError({
          code: 'CONFLICT',
          message: 'the visit already has a primary diagnosis: record this one as secondary, or correct the primary',
        });
    }
    const isi = {
      code: input.code,
      display: known.en,
      displayId: known.id,
      clinicalStatus: input.clinicalStatus,
      ...(input.note ? { note: input.note } : {}),
    };
    return [{ kode: input.code, kategori: 'encounter-diagnosis', peran: input.rank, isi }];
  };
}

type AllergyFields = Omit<z.infer<typeof alergiAmendInput>, 'id' | 'expectedVersion' | 'reason'>;

function allergyProblems(input: AllergyFields): Record<string, string[]> {
  if (input.noneKnown) {
    const extra = (['substance', 'category', 'criticality', 'reaction'] as const).filter((k) => input[k] !== undefined);
    return extra.length ? { noneKnown: [`"no known allergy" takes no ${extra.join(', ')}`] } : {};
  }
  const problems: Record<string, string[]> = {};
  if (!input.substance) problems.substance = ['say what the patient is allergic to (or set noneKnown)'];
  if (!input.category) problems.category = ['say whether it is a food, medication, environment or biologic allergy'];
  return problems;
}

export function alergiPrepare(input: AllergyFields): Prepare {
  return async (q, pasienId, current) => {
    const problems = allergyProblems(input);
    if (Object.keys(problems).length) throw badInput(problems);
    // "No known allergy" and a recorded allergy contradict each other: the chart must say one thing.
    const others = await q.query<{ kode: string | null }>(
      "select kode from records.klinis where pasien_id = $1::uuid and jenis = 'alergi' and not entered_in_error and isi->>'clinicalStatus' = 'active' and id <> coalesce($2::uuid, '00000000-0000-0000-0000-000000000000'::uuid)",
      [pasienId, (current?.id as string | undefined) ?? null],
    );
    const nka = others.some((o) => o.kode === NO_KNOWN_ALLERGY.code);
    if (input.noneKnown && others.some((o) => o.kode !== NO_KNOWN_ALLERGY.code))
      throw new TRPCError({
        code: 'CONFLICT',
        message: 'the patient has active allergies recorded: resolve or correct them before recording none known',
      });
    if (input.noneKnown && nka)
      throw new TRPCError({ code: 'CONFLICT', message: 'the patient is already recorded as having no known allergy' });
    if (!input.noneKnown && nka)
      throw new TRPCError({
        code: 'CONFLICT',
        message: 'the patient is recorded as having no known allergy: correct that entry to this allergy instead',
      });
    if (input.noneKnown) {
      return [
        {
          kode: NO_KNOWN_ALLERGY.code,
          kategori: 'none',
          isi: { noneKnown: true, clinicalStatus: input.clinicalStatus, verificationStatus: input.verificationStatus },
        },
      ];
    }
    const { noneKnown: _n, ...isi } = input;
    return [{ kode: null, kategori: input.category!, isi }];
  };
}

type NoteFields = Omit<z.infer<typeof catatanAmendInput>, 'id' | 'expectedVersion' | 'reason'>;

export function catatanPrepare(input: NoteFields, kunjunganId?: string): Prepare {
  return async (q, _pasienId, current) => {
    const { subjective, objective, assessment, plan } = input;
    if (![subjective, objective, assessment, plan].some((v) => v !== ''))
      throw badInput({ _input: ['write at least one of subjective, objective, assessment, plan'] });
    if (!current) {
      const [other] = await q.query(
        "select 1 from records.klinis where kunjungan_id = $1::uuid and jenis = 'catatan' and not entered_in_error",
        [kunjunganId],
      );
      if (other) throw new TRPCError({ code: 'CONFLICT', message: 'the visit has a note: correct it (catatan.amend) instead' });
    }
    return [{ kode: null, kategori: 'soap', isi: { subjective, objective, assessment, plan } } satisfies Prepared];
  };
}
