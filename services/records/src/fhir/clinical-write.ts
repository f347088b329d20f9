// Create and update of Observation, Condition and AllergyIntolerance, through the clinical procedures'
// own input schemas and each kind's prepare function (klinis/kinds.ts), so a rule (plausibility, unit,
// known ICD-10 code, one primary diagnosis, no known allergy against recorded ones) holds on FHIR as on
// tRPC and REST. An update is a correction: it needs the version it corrects (If-Match, or
// meta.versionId) and its reason, in the amendment-reason extension. An update whose status (or
// verificationStatus) is entered-in-error marks the entry so, with that reason.
import { TRPCError } from '@trpc/server';
import type { z } from 'zod';
import {
  alergiAmendInput,
  alergiPrepare,
  alergiRecordInput,
  diagnosisAmendInput,
  diagnosisPrepare,
  diagnosisRecordInput,
  klinisStore,
  retractInput,
  vitalAmendInput,
  vitalRecordInput,
  vitalsPrepare,
} from '../klinis/index.ts';
import type { About, Entry, Prepare } from '../klinis/index.ts';
import { FieldErrors } from '../server/index.ts';
import { fromClinical } from './clinical-input.ts';
import type { ClinicalInput } from './clinical-input.ts';
import { AMENDMENT_REASON_URL, FHIR_TYPE, toResource } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { guardEntry, kategoriOf, mappingContext, notFoundOf } from './clinical-read.ts';
import { clinicalGuard, needToKnowFor, preferOf, via } from './context.ts';
import type { Interaction } from './context.ts';
import { FhirError, operationOutcome } from './outcome.ts';
import type { Issue } from './outcome.ts';
import { readResource, sendResource, versionFromIfMatch, versionHeaders } from './wire.ts';

/** The FHIR path of a procedure field, or the resource when it has none. */
const pathOf = (input: ClinicalInput, field: string) => input.paths[field] ?? input.paths[field.split('.')[0]!] ?? FHIR_TYPE[input.kind];

/** A schema's verdict on the fields, or a 400 naming each problem's FHIR path. */
function parse<S extends z.ZodType>(schema: S, value: unknown, input: ClinicalInput): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i): Issue => ({
    severity: 'error',
    code: 'value',
    diagnostics: i.message,
    expression: [pathOf(input, i.path.join('.'))],
  }));
  throw new FhirError(400, 'invalid', issues[0]!.diagnostics, { issues });
}

/** A store refusal with field errors, as issues at the fields' FHIR paths; a stale version as `stale`. */
async function translated<T>(input: ClinicalInput, stale: number, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof TRPCError && err.cause instanceof FieldErrors)) throw err;
    const fields = err.cause.fieldErrors;
    if (fields.expectedVersion) throw new FhirError(stale, 'conflict', err.message);
    if (err.code === 'NOT_FOUND') throw notFoundOf(input.kind);
    const status = err.code === 'CONFLICT' ? 409 : 400;
    const issues = Object.entries(fields).flatMap(([field, messages]) =>
      messages.map((m): Issue => ({
        severity: 'error',
        code: status === 409 ? 'conflict' : 'value',
        diagnostics: m,
        expression: [pathOf(input, field)],
      })),
    );
    throw new FhirError(status, status === 409 ? 'conflict' : 'invalid', issues[0]?.diagnostics ?? err.message, { issues });
  }
}

const optional = (input: ClinicalInput, ...names: string[]) =>
  Object.fromEntries(names.filter((n) => input.fields[n] !== undefined).map((n) => [n, input.fields[n]]));

/** The record input of the kind and its preparation. */
function recordOf(input: ClinicalInput): {
  target: { kunjunganId?: string; pasienId?: string; waktu?: string; reason?: string };
  prepare: Prepare;
} {
  const reason = input.reason !== undefined ? { reason: input.reason } : {};
  if (input.kind === 'vital') {
    const v = parse(vitalRecordInput, { kunjunganId: input.kunjunganId, ...optional(input, 'waktu', 'measurements'), ...reason }, input);
    return { target: { ...v, pasienId: input.pasienId! }, prepare: vitalsPrepare(v.measurements) };
  }
  if (input.kind === 'diagnosis') {
    const d = parse(
      diagnosisRecordInput,
      { kunjunganId: input.kunjunganId, ...optional(input, 'code', 'rank', 'clinicalStatus', 'note'), ...reason },
      input,
    );
    return { target: { kunjunganId: d.kunjunganId, pasienId: input.pasienId!, ...reason }, prepare: diagnosisPrepare(d, d.kunjunganId) };
  }
  const a = parse(
    alergiRecordInput,
    {
      pasienId: input.pasienId,
      ...(input.kunjunganId ? { kunjunganId: input.kunjunganId } : {}),
      ...optional(input, 'noneKnown', 'substance', 'category', 'criticality', 'reaction', 'clinicalStatus', 'verificationStatus'),
    },
    input,
  );
  return {
    target: { pasienId: a.pasienId, ...(a.kunjunganId ? { kunjunganId: a.kunjunganId } : {}), ...reason },
    prepare: alergiPrepare(a),
  };
}

/** The patient, visit and time an update names: the store refuses them when they are not the entry's (they never change). */
const aboutOf = (input: ClinicalInput): About => ({
  pasienId: input.pasienId,
  kunjunganId: input.kunjunganId,
  waktu: input.fields.waktu,
});

/** The amend input of the kind (what an entry may change: its content, not whom or when it is about) and its preparation. */
function amendOf(input: ClinicalInput, id: string, expectedVersion: number): Prepare {
  const base = { id, expectedVersion, reason: input.reason };
  if (input.kind === 'vital')
    return vitalsPrepare(parse(vitalAmendInput, { ...base, ...optional(input, 'measurements') }, input).measurements);
  if (input.kind === 'diagnosis')
    return diagnosisPrepare(parse(diagnosisAmendInput, { ...base, ...optional(input, 'code', 'rank', 'clinicalStatus', 'note') }, input));
  const fields = optional(input, 'noneKnown', 'substance', 'category', 'criticality', 'reaction', 'clinicalStatus', 'verificationStatus');
  return alergiPrepare(parse(alergiAmendInput, { ...base, ...fields }, input));
}

/** The category a written entry will be in, for a category-limited scope. */
const kategoriWritten = (input: ClinicalInput) =>
  input.kind === 'vital' ? 'vital-signs' : input.kind === 'diagnosis' ? 'encounter-diagnosis' : String(input.fields.category ?? 'none');

/** A written entry, as the Prefer header asks: the resource, nothing, or an OperationOutcome. */
async function sendWritten(ix: Interaction, status: number, e: Entry, note: string): Promise<void> {
  const type = FHIR_TYPE[e.jenis as ServedKind];
  const headers = versionHeaders(e.version, e.updatedAt, `${ix.base}/${type}/${e.id}/_history/${e.version}`);
  const prefer = preferOf(ix.req).return;
  if (prefer === 'minimal') {
    ix.res.writeHead(status, { 'cache-control': 'no-store', ...headers }).end();
    return;
  }
  const body =
    prefer === 'OperationOutcome'
      ? operationOutcome([{ severity: 'information', code: 'informational', diagnostics: note }])
      : toResource(e, await mappingContext(ix));
  sendResource(ix.res, status, body, ix.pretty, headers);
}

export async function createEntry(ix: Interaction, kind: ServedKind): Promise<void> {
  const permission = `${kind}.record` as const;
  const allowed = clinicalGuard(ix, permission);
  const input = fromClinical(kind, await readResource(ix.req, ix.maxBodyBytes));
  const type = FHIR_TYPE[kind];
  if (input.enteredInError)
    throw new FhirError(400, 'invalid', `a new ${type} cannot be entered in error`, { expression: [`${type}.status`] });
  const kategori = kategoriOf(kind, allowed);
  if (kategori && !kategori.includes(kategoriWritten(input)))
    throw new FhirError(403, 'forbidden', `this credential's scope does not reach this ${type}'s category`);
  if (allowed.patientId !== undefined && allowed.patientId !== input.pasienId)
    throw new FhirError(403, 'forbidden', 'a patient/ scope writes only for the patient of its launch context');
  const subject = input.kunjunganId ? { kunjunganId: input.kunjunganId } : { pasienId: input.pasienId! };
  const { pasienId } = await needToKnowFor(ix, permission, subject);
  if (pasienId !== input.pasienId)
    throw new FhirError(400, 'invalid', 'the encounter is not this patient’s', {
      expression: [`${type}.${kind === 'alergi' ? 'patient' : 'subject'}`],
    });
  const { target, prepare } = recordOf(input);
  const [created] = await translated(input, 409, () => klinisStore(ix.scope).record(kind, target, prepare, via('create')));
  if (!created) throw new FhirError(500, 'exception', 'internal error');
  await sendWritten(ix, 201, created, `${type}/${created.id} created`);
}

export async function updateEntry(ix: Interaction, kind: ServedKind): Promise<void> {
  const permission = `${kind}.amend` as const;
  const type = FHIR_TYPE[kind];
  const body = await readResource(ix.req, ix.maxBodyBytes);
  const { id, only } = await guardEntry(ix, kind, permission);
  if (typeof body.id !== 'string' || body.id.toLowerCase() !== id)
    throw new FhirError(400, 'invalid', 'the resource id must be present and equal the id in the URL', { expression: [`${type}.id`] });
  const input = fromClinical(kind, body);
  const ifMatch = versionFromIfMatch(ix.req.headers['if-match']);
  const expectedVersion = ifMatch ?? input.versionId;
  if (expectedVersion === undefined)
    throw new FhirError(412, 'conflict', `an update corrects one version: send If-Match: W/"<version>" or meta.versionId`);
  if (input.reason === undefined)
    throw new FhirError(
      400,
      'required',
      `an update is a correction and needs its reason: the extension ${AMENDMENT_REASON_URL} (valueString)`,
      {
        expression: [`${type}.extension`],
      },
    );
  if (only.kategori) {
    if (!only.kategori.includes(kategoriWritten(input)))
      throw new FhirError(403, 'forbidden', `this credential's scope does not reach this ${type}'s category`);
    // The entry as it is must be within the scope's categories too (a read, audited as such): else it is not found.
    await klinisStore(ix.scope)
      .get(kind, id, via('update'), only)
      .catch((err: unknown) => {
        throw (err as { code?: string }).code === 'NOT_FOUND' ? notFoundOf(kind) : err;
      });
  }
  const stale = ifMatch !== undefined ? 412 : 409;
  const store = klinisStore(ix.scope);
  const written = input.enteredInError
    ? await translated(input, stale, () => {
        const r = parse(retractInput, { id, expectedVersion, reason: input.reason }, input);
        return store.retract(kind, id, r.expectedVersion, r.reason, via('update'), aboutOf(input));
      })
    : await translated(input, stale, () =>
        store.amend(kind, id, expectedVersion, input.reason!, amendOf(input, id, expectedVersion), via('update'), aboutOf(input)),
      );
  await sendWritten(ix, 200, written, `${type}/${id} updated`);
}
