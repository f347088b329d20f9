// The clinical procedures of each kind (`vital.*`, `diagnosis.*`, `alergi.*`, `catatan.*`): list,
// history, record, amend, retract, all need-to-know (clinicalProcedure), on tRPC and REST alike. The
// kinds differ only in their record and amend inputs and in what their checks make of them (kinds.ts).
import { z } from 'zod';
import type { ClinicalKind } from '../access/index.ts';
import { builtOutput, clinicalProcedure, clinicalWriteProcedure, restMeta, router } from '../server/index.ts';
import { alergiPrepare, catatanPrepare, checkedVitals, diagnosisPrepare, vitalsPrepare } from './kinds.ts';
import {
  alergiAmendInput,
  alergiRecordInput,
  catatanAmendInput,
  catatanRecordInput,
  diagnosisAmendInput,
  diagnosisRecordInput,
  entryOutput,
  historyInput,
  listInput,
  retractInput,
  vitalAmendInput,
  vitalRecordInput,
} from './schema.ts';
import { klinisStore } from './store.ts';
import type { Prepare } from './store.ts';

const ENTRY_ERRORS = { 404: 'Entry not found', 409: 'Changed meanwhile, entered in error, or not allowed in the visit’s state' };
const RECORD_ERRORS = { 404: 'Visit or patient not found', 409: 'Not allowed in the visit’s state, or it would contradict the record' };

const LABEL: Record<ClinicalKind, string> = {
  vital: 'vital signs',
  diagnosis: 'diagnoses',
  alergi: 'allergies',
  catatan: 'clinical notes',
};

/** list, history and retract: the same for every kind. */
function commonProcedures(kind: ClinicalKind) {
  const path = `/klinis/${kind}` as const;
  return {
    list: clinicalProcedure(`${kind}.list`, listInput, (i) => (i.kunjunganId ? { kunjunganId: i.kunjunganId } : { pasienId: i.pasienId! }))
      .meta(restMeta('GET', path, 'klinis', `A visit's or a patient's ${LABEL[kind]}, newest first`, { 404: 'Visit or patient not found' }))
      .output(builtOutput(z.array(entryOutput)))
      .query(({ ctx, input }) => klinisStore(ctx.scope).list(kind, input)),

    history: clinicalProcedure(`${kind}.history`, historyInput, (i) => ({ klinisId: i.id }))
      .meta(
        restMeta('GET', `${path}/{id}/history`, 'klinis', `Every version of one of the ${LABEL[kind]}, newest first`, {
          404: 'Entry not found',
        }),
      )
      .output(builtOutput(z.array(entryOutput)))
      .query(({ ctx, input }) => klinisStore(ctx.scope).versions(kind, input.id)),

    retract: clinicalProcedure(`${kind}.retract`, retractInput, (i) => ({ klinisId: i.id }))
      .meta(
        restMeta(
          'POST',
          `${path}/{id}/entered-in-error`,
          'klinis',
          'Mark an entry entered in error, with a reason (it stays readable)',
          ENTRY_ERRORS,
        ),
      )
      .output(builtOutput(entryOutput))
      .mutation(({ ctx, input }) => klinisStore(ctx.scope).retract(kind, input.id, input.expectedVersion, input.reason)),
  };
}

const recordMeta = (kind: ClinicalKind, summary: string) => restMeta('POST', `/klinis/${kind}`, 'klinis', summary, RECORD_ERRORS);
const amendMeta = (kind: ClinicalKind) =>
  restMeta('POST', `/klinis/${kind}/{id}/amend`, 'klinis', 'Correct an entry: its next version, with a reason', ENTRY_ERRORS);
const amend = (
  kind: ClinicalKind,
  scope: Parameters<typeof klinisStore>[0],
  i: { id: string; expectedVersion: number; reason: string },
  prepare: Prepare,
) => klinisStore(scope).amend(kind, i.id, i.expectedVersion, i.reason, prepare);

export const vitalRouter = router({
  ...commonProcedures('vital'),
  record: clinicalWriteProcedure('vital.record', vitalRecordInput)
    .meta(
      recordMeta(
        'vital',
        'Record vital signs (one Observation per sign; blood pressure as one panel), checked for plausibility and flagged',
      ),
    )
    .output(builtOutput(z.array(entryOutput)))
    .mutation(({ ctx, input }) => klinisStore(ctx.scope).recordInVisit(ctx.access, 'vital', input, checkedVitals(input.measurements))),
  amend: clinicalProcedure('vital.amend', vitalAmendInput, (i) => ({ klinisId: i.id }))
    .meta(amendMeta('vital'))
    .output(builtOutput(entryOutput))
    .mutation(({ ctx, input }) => amend('vital', ctx.scope, input, vitalsPrepare(input.measurements))),
});

export const diagnosisRouter = router({
  ...commonProcedures('diagnosis'),
  record: clinicalProcedure('diagnosis.record', diagnosisRecordInput, (i) => ({ kunjunganId: i.kunjunganId }))
    .meta(recordMeta('diagnosis', 'Record a diagnosis (ICD-10), primary or secondary'))
    .output(builtOutput(entryOutput))
    .mutation(
      async ({ ctx, input }) => (await klinisStore(ctx.scope).record('diagnosis', input, diagnosisPrepare(input, input.kunjunganId)))[0]!,
    ),
  amend: clinicalProcedure('diagnosis.amend', diagnosisAmendInput, (i) => ({ klinisId: i.id }))
    .meta(amendMeta('diagnosis'))
    .output(builtOutput(entryOutput))
    .mutation(({ ctx, input }) => amend('diagnosis', ctx.scope, input, diagnosisPrepare(input))),
});

export const alergiRouter = router({
  ...commonProcedures('alergi'),
  record: clinicalProcedure('alergi.record', alergiRecordInput, (i) => ({ pasienId: i.pasienId }))
    .meta(recordMeta('alergi', 'Record an allergy of the patient, or that the patient has no known allergy'))
    .output(builtOutput(entryOutput))
    .mutation(async ({ ctx, input }) => (await klinisStore(ctx.scope).record('alergi', input, alergiPrepare(input)))[0]!),
  amend: clinicalProcedure('alergi.amend', alergiAmendInput, (i) => ({ klinisId: i.id }))
    .meta(amendMeta('alergi'))
    .output(builtOutput(entryOutput))
    .mutation(({ ctx, input }) => amend('alergi', ctx.scope, input, alergiPrepare(input))),
});

export const catatanRouter = router({
  ...commonProcedures('catatan'),
  record: clinicalProcedure('catatan.record', catatanRecordInput, (i) => ({ kunjunganId: i.kunjunganId }))
    .meta(recordMeta('catatan', "Write the visit's clinical note (SOAP); a visit has one, corrected by amendments"))
    .output(builtOutput(entryOutput))
    .mutation(
      async ({ ctx, input }) => (await klinisStore(ctx.scope).record('catatan', input, catatanPrepare(input, input.kunjunganId)))[0]!,
    ),
  amend: clinicalProcedure('catatan.amend', catatanAmendInput, (i) => ({ klinisId: i.id }))
    .meta(amendMeta('catatan'))
    .output(builtOutput(entryOutput))
    .mutation(({ ctx, input }) => amend('catatan', ctx.scope, input, catatanPrepare(input))),
});
