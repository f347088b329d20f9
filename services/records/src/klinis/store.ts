// Clinical entries of every kind, made per request from the caller's tenant scope: record, correct
// (a new version with a reason), mark entered-in-error (with a reason), read, list, and every version.
// Nothing is deleted or changed in place without its reason (the table's trigger refuses it); every
// read and write appends its audit row in the same statement or transaction.
import { TRPCError } from '@trpc/server';
import { accessColumns, needToKnow } from '../access/index.ts';
import type { AccessInStatement, ClinicalKind } from '../access/index.ts';
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import type { Querier } from '../db/index.ts';
import { badInput, FieldErrors } from '../server/index.ts';
import type { Actor, TenantScope } from '../server/index.ts';
import { klinisReads } from './reads.ts';
import { ENTRY_NOT_FOUND, SELECT_ENTRY, toEntry } from './rows.ts';
import type { Row } from './rows.ts';
import type { Entry, Prepared } from './schema.ts';
import { checkUnmoved } from './unmoved.ts';
import type { About } from './unmoved.ts';
import { ageInYearsSql, flagAtAgeSql } from './vital.ts';

/** The visit states a kind may be recorded in without an amendment reason. */
const OPEN_FOR: Record<ClinicalKind, readonly string[]> = {
  vital: ['arrived', 'in-progress'],
  diagnosis: ['in-progress'],
  catatan: ['in-progress'],
  alergi: ['planned', 'arrived', 'in-progress'],
};

/** Where a new entry goes: a visit (then its patient), or a patient alone (allergies). */
export interface Target {
  kunjunganId?: string | undefined;
  pasienId?: string | undefined;
  waktu?: string | undefined;
  /** The amendment reason a finished visit asks of a new entry. */
  reason?: string | undefined;
}

/** When the visit's day begins: visits are dated in the hospital's day (WIB), as their queues are. */
const VISIT_DAY_START = "(k.tanggal::timestamp at time zone 'Asia/Jakarta')";

/**
 * Whether an observation taken at `at` (a timestamptz expression) belongs to the visit `k`: from the
 * start of the visit's day and, once the visit is finished, before the end of that day or by the
 * visit's end if that is later (a nurse's last blood pressure before the patient goes home is often
 * taken after the doctor finished); an open visit takes observations until now. One expression for
 * the one-statement write and for the check that explains a refusal, so the two never disagree.
 */
const takenInVisit = (at: string) => ({
  fromItsDay: `${at} >= ${VISIT_DAY_START}`,
  byItsEnd: `(k.ended_at is null or ${at} < ${VISIT_DAY_START} + interval '1 day' or ${at} <= k.ended_at)`,
});

/** Kinds whose time is when they were observed (`waktu`, given or now), which lies within the visit. */
const OBSERVED_IN_VISIT: ReadonlySet<ClinicalKind> = new Set(['vital']);

/** The visit's state ($1 the visit) and whether an observation at $2 (null: now) belongs to it. */
const VISIT_STATE_SQL = (() => {
  const taken = takenInVisit('coalesce($2::timestamptz, now())');
  return `select k.status, k.pasien_id::text as pasien_id, ps.status as pasien_status, to_char(k.tanggal, 'YYYY-MM-DD') as tanggal,
    to_char(k.ended_at at time zone 'Asia/Jakarta', 'YYYY-MM-DD"T"HH24:MI:SS.MS"+07:00"') as ended_wib,
    ${taken.fromItsDay} as from_its_day, ${taken.byItsEnd} as by_its_end
  from records.kunjungan k join records.pasien ps on ps.id = k.pasien_id where k.id = $1::uuid`;
})();

/**
 * Whether the visit's state allows the kind: a planned visit takes no findings yet, a cancelled one
 * none at all, a finished one only amendments (with their reason).
 */
type VisitState = {
  status: string;
  pasien_id: string;
  pasien_status: string;
  tanggal: string;
  ended_wib: string | null;
  from_its_day: boolean;
  by_its_end: boolean;
};
const ARCHIVED = () => new TRPCError({ code: 'CONFLICT', message: 'the patient is archived: an archived record takes no new entries' });

function checkVisit(kind: ClinicalKind, k: VisitState | undefined, target: Target): string {
  if (!k) throw new TRPCError({ code: 'NOT_FOUND', message: 'visit not found' });
  if (k.pasien_status !== 'active') throw ARCHIVED();
  if (target.pasienId !== undefined && target.pasienId !== k.pasien_id)
    throw badInput({ kunjunganId: ['the visit is not this patient’s'] });
  if (k.status === 'cancelled') throw new TRPCError({ code: 'CONFLICT', message: 'the visit was cancelled: it takes no clinical entries' });
  if (k.status === 'finished' && !target.reason)
    throw badInput({ reason: ['the visit is finished: an entry added now is an amendment, give its reason'] });
  if (k.status !== 'finished' && !OPEN_FOR[kind]!.includes(k.status))
    throw new TRPCError({
      code: 'CONFLICT',
      message: `a ${k.status} visit takes no ${kind} entries yet: check the patient in or start the visit first`,
    });
  if (OBSERVED_IN_VISIT.has(kind)) checkObservedInVisit(k, target);
  return k.pasien_id;
}

/** An observation belongs to the visit it is recorded in (takenInVisit): a late entry says when it was taken. */
function checkObservedInVisit(k: VisitState, target: Target): void {
  if (!k.from_its_day) throw badInput({ waktu: [`the visit is on ${k.tanggal}: what is recorded in it was taken from that day on`] });
  if (k.by_its_end) return;
  const message = `the visit of ${k.tanggal} is finished: what is recorded in it was taken that day or by its end (${k.ended_wib})`;
  throw badInput({ waktu: [target.waktu === undefined ? `${message}; give when it was taken` : message] });
}

/**
 * The patient the target names, after the visit's state allows the kind (checkVisit). The visit's row
 * is share-locked, so it cannot be finished meanwhile.
 */
async function resolveTarget(q: Querier, kind: ClinicalKind, target: Target): Promise<string> {
  if (!target.kunjunganId) {
    const [p] = await q.query<{ status: string }>('select status from records.pasien where id = $1::uuid', [target.pasienId]);
    if (!p) throw new TRPCError({ code: 'NOT_FOUND', message: 'patient not found' });
    if (p.status !== 'active') throw ARCHIVED();
    return target.pasienId!;
  }
  const [k] = await q.query<VisitState>(`${VISIT_STATE_SQL} for share of k`, [target.kunjunganId, target.waktu ?? null]);
  return checkVisit(kind, k, target);
}

/** The expected version, checked against the entry's, as the other stores do. */
function checkVersion(current: number, expected: number | undefined): void {
  if (expected === undefined || expected === current) return;
  const message = `entry was changed meanwhile (version ${current}, expected ${expected})`;
  throw new TRPCError({ code: 'CONFLICT', message, cause: new FieldErrors({ expectedVersion: [message] }) });
}

/**
 * A finished visit keeps its primary diagnosis (it was finished on it, and SATUSEHAT refuses an
 * Encounter without one): the primary of a finished visit is corrected, never demoted or withdrawn.
 */
function keepPrimary(kind: ClinicalKind, row: Row, nextPeran: string | null): void {
  if (kind !== 'diagnosis' || row.peran !== 'primary' || row.visit_status !== 'finished' || nextPeran === 'primary') return;
  throw new TRPCError({
    code: 'CONFLICT',
    message: 'a finished visit keeps a primary diagnosis: correct its code (diagnosis.amend) instead',
  });
}

/** A kind's preparation: may look things up (diagnosis codes) in the writing transaction. */
export type Prepare = (q: Querier, pasienId: string, current?: Row) => Promise<Prepared[]>;

/** Locks one entry of `kind` for a change and checks it may still change. */
async function lockEntry(q: Querier, kind: ClinicalKind, id: string, expectedVersion: number | undefined, about: About): Promise<Row> {
  const [row] = await q.query<Row>(
    `select ${SELECT_ENTRY}, k.status as visit_status from records.klinis e left join records.kunjungan k on k.id = e.kunjungan_id
     where e.id = $1::uuid and e.jenis = $2 for update of e`,
    [id, kind],
  );
  if (!row) throw ENTRY_NOT_FOUND();
  if (row.entered_in_error === true)
    throw new TRPCError({ code: 'CONFLICT', message: 'the entry is marked entered-in-error: record a new one instead' });
  checkVersion(Number(row.version), expectedVersion);
  checkUnmoved(row, about);
  return row;
}

/** Writes an entry's next version (`set` says what changes) with its audit row. */
async function writeVersion(
  q: Querier,
  actor: Actor,
  kind: ClinicalKind,
  row: Row,
  details: Record<string, string>,
  set: (p: (v: unknown) => string) => string,
): Promise<Entry> {
  const { values, p } = params();
  const action = details.change === 'amend' ? 'klinis.amend' : 'klinis.retract';
  const sql = `with e as (
      update records.klinis e set ${set(p)}, version = e.version + 1, updated_at = now(), updated_by = ${p(actor.userId)},
             updated_role = ${p(actor.role)}
      where e.id = ${p(row.id)}::uuid returning *),
    audit as (${auditInsertFor(actor)(p, action, `array[${p(row.pasien_id)}::uuid]`, { ...details, jenis: kind, klinisId: String(row.id) })})
    select ${SELECT_ENTRY} from e`;
  const [written] = await q.query<Row>(sql, values);
  return toEntry(written!);
}

/**
 * The INSERT of prepared entries of `kind` for the patient `patient` (a SELECT of pasien_id and
 * tanggal_lahir), returning them.
 */
function insertEntries(
  p: (v: unknown) => string,
  actor: Actor,
  kind: ClinicalKind,
  patient: string,
  target: Target,
  prepared: Prepared[],
): string {
  const stamp = `${p(actor.userId)}, ${p(actor.role)}`;
  // An entry whose flag depends on age (a child's vital signs) takes the flag of the patient's age
  // when measured, from the bands its checks gave (Prepared.byAge).
  return `insert into records.klinis (jenis, pasien_id, kunjungan_id, kode, kategori, peran, isi, flag, waktu, alasan,
                                      created_by, created_role, updated_by, updated_role)
    select ${p(kind)}, t.pasien_id, ${p(target.kunjunganId ?? null)}::uuid, x.kode, x.kategori, x.peran, x.isi,
           ${flagAtAgeSql('x."byAge"', 'x.flag', ageInYearsSql('t.tanggal_lahir', 'w.at'))},
           w.at, ${p(target.reason ?? null)}, ${stamp}, ${stamp}
    from (${patient}) t
    cross join (select coalesce(${p(target.waktu ?? null)}::timestamptz, now()) as at) w
    cross join jsonb_to_recordset(${p(JSON.stringify(prepared))}::jsonb)
      as x(kode text, kategori text, peran text, isi jsonb, flag text, "byAge" jsonb)
    returning *`;
}

/**
 * New entries of a kind whose checks need nothing from the database (vital signs) in a visit: the
 * need-to-know check (left to this statement by clinicalWriteProcedure), the visit's state check, the
 * entries and their audit row, flagged as the check found, in one statement (so one round trip, and
 * prepared), the visit share-locked as record() locks it. When nothing was written, the check and the
 * visit's state say why.
 */
async function recordInVisit(
  { db, actor }: TenantScope,
  access: AccessInStatement,
  kind: ClinicalKind,
  target: Target & { kunjunganId: string },
  prepared: Prepared[],
  extra: Record<string, string>,
): Promise<Entry[]> {
  const { values, p } = params();
  const open = `k.status in (${OPEN_FOR[kind].map((s) => `'${s}'`).join(', ')}) or (k.status = 'finished' and ${p(target.reason ?? null)}::text is not null)`;
  const taken = takenInVisit(`coalesce(${p(target.waktu ?? null)}::timestamptz, now())`);
  const allowed = OBSERVED_IN_VISIT.has(kind) ? `(${open}) and ${taken.fromItsDay} and ${taken.byItsEnd}` : open;
  const flags = { breakGlass: 'not ok.rel', purpose: "case when ok.rel then 'treatment' else 'break-the-glass' end" };
  const sql = `with checked as (select k.pasien_id, ps.tanggal_lahir, ${accessColumns(p(actor.userId), 'k.pasien_id')}
        from records.kunjungan k join records.pasien ps on ps.id = k.pasien_id
        where k.id = ${p(target.kunjunganId)}::uuid and ps.status = 'active' and (${allowed}) for share of k),
      ok as (select * from checked where checked.rel or checked.btg),
      e as (${insertEntries(p, actor, kind, 'select ok.pasien_id, ok.tanggal_lahir from ok', target, prepared)}),
      audit as (${auditInsertFor(actor)(p, 'klinis.record', 'array[ok.pasien_id]', { ...extra, jenis: kind, kunjunganId: target.kunjunganId }, flags)} from ok)
      select ${SELECT_ENTRY} from e order by e.kode`;
  const rows = await db.one<Row>(sql, values);
  if (rows.length > 0) return rows.map(toEntry);
  await needToKnow(db, actor.userId, access.permission, { kunjunganId: target.kunjunganId });
  const [k] = await db.one<VisitState>(VISIT_STATE_SQL, [target.kunjunganId, target.waktu ?? null]);
  checkVisit(kind, k, target);
  throw new TRPCError({ code: 'CONFLICT', message: 'the visit changed meanwhile: try again' });
}

export function klinisStore(scope: TenantScope) {
  const { db, actor } = scope;
  const auditInsert = auditInsertFor(actor);

  return {
    /** New entries of one kind, in one transaction with their audit row. */
    async record(kind: ClinicalKind, target: Target, prepare: Prepare, extra: Record<string, string> = {}): Promise<Entry[]> {
      return db.tx(async (q) => {
        const pasienId = await resolveTarget(q, kind, target);
        const prepared = await prepare(q, pasienId);
        const { values, p } = params();
        const patient = `select id as pasien_id, tanggal_lahir from records.pasien where id = ${p(pasienId)}::uuid`;
        const sql = `with e as (${insertEntries(p, actor, kind, patient, target, prepared)}),
          audit as (${auditInsert(p, 'klinis.record', `array[${p(pasienId)}::uuid]`, { ...extra, jenis: kind, kunjunganId: target.kunjunganId ?? '' })})
          select ${SELECT_ENTRY} from e order by e.kode`;
        return (await q.query<Row>(sql, values)).map(toEntry);
      });
    },

    /** New entries in a visit in one statement: see recordInVisit. */
    recordInVisit: (
      access: AccessInStatement,
      kind: ClinicalKind,
      target: Target & { kunjunganId: string },
      prepared: Prepared[],
      extra: Record<string, string> = {},
    ) => recordInVisit(scope, access, kind, target, prepared, extra),

    /** A correction: the entry's next version, with its reason. */
    async amend(
      kind: ClinicalKind,
      id: string,
      expectedVersion: number | undefined,
      reason: string,
      prepare: Prepare,
      extra: Record<string, string> = {},
      about: About = {},
    ): Promise<Entry> {
      return db.tx(async (q) => {
        const row = await lockEntry(q, kind, id, expectedVersion, about);
        if (row.visit_status === 'cancelled')
          throw new TRPCError({ code: 'CONFLICT', message: 'the visit was cancelled: its entries do not change' });
        const [next] = await prepare(q, String(row.pasien_id), row);
        if (!next) throw badInput({ _input: ['nothing to correct'] });
        keepPrimary(kind, row, next.peran ?? null);
        return writeVersion(
          q,
          actor,
          kind,
          row,
          { ...extra, change: 'amend' },
          (p) =>
            // Flagged as an insert is: at the age the patient had when the entry was measured.
            `kode = ${p(next.kode)}, kategori = ${p(next.kategori)}, peran = ${p(next.peran ?? null)}, isi = ${p(JSON.stringify(next.isi))}::jsonb,
           flag = ${flagAtAgeSql(`${p(next.byAge ? JSON.stringify(next.byAge) : null)}::jsonb`, `${p(next.flag ?? null)}::text`, ageInYearsSql('(select tanggal_lahir from records.pasien where id = e.pasien_id)', 'e.waktu'))},
           alasan = ${p(reason)}`,
        );
      });
    },

    /** Marks a wrong entry entered-in-error, with its reason: it stays, readable, and never changes again. */
    async retract(
      kind: ClinicalKind,
      id: string,
      expectedVersion: number | undefined,
      reason: string,
      extra: Record<string, string> = {},
      about: About = {},
    ): Promise<Entry> {
      return db.tx(async (q) => {
        const row = await lockEntry(q, kind, id, expectedVersion, about);
        keepPrimary(kind, row, null);
        return writeVersion(
          q,
          actor,
          kind,
          row,
          { ...extra, change: 'entered-in-error' },
          (p) => `entered_in_error = true, alasan = ${p(reason)}`,
        );
      });
    },

    ...klinisReads(scope),
  };
}
