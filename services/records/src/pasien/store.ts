// The patient data access, made per request from the caller's tenant scope (see server/trpc.ts).
// Every read and write of patient data appends its audit row in the same transaction, usually in
// the same statement (a data-modifying CTE), so that there is no access without its trace and no
// trace of an access that was rolled back.
import { TRPCError } from '@trpc/server';
import { auditInsertFor, usedFilters } from '../audit/index.ts';
import { params } from '../db/index.ts';
import { badInput } from '../server/index.ts';
import type { TenantScope } from '../server/index.ts';
import { nikMismatch } from './nik.ts';
import { PASIEN_WIDTH, SELECT_PASIEN, toPasien, toPasienFromArray } from './rows.ts';
import type { Row } from './rows.ts';
import { COLUMNS, WRITABLE, normalizePhone } from './schema.ts';
import type { CreatePasienInput, ListPasienInput, Pasien, PasienFieldName, UpdatePasienInput } from './schema.ts';

const NOT_FOUND = () => new TRPCError({ code: 'NOT_FOUND', message: 'patient not found' });

/** The cause of a CONFLICT when `expectedVersion` is not the current version (FHIR answers 412). */
export class StaleVersion extends Error {}
/** The cause of a CONFLICT when the patient is archived (FHIR: the resource is deleted). */
export class Archived extends Error {}

/** What the audit row's details add when another surface (FHIR) makes the call: never patient data. */
export type AuditExtra = Record<string, string>;

// Listing statement texts by the listing's shape. The text depends on the status and on which filters
// and whether a cursor are given, nothing else (values travel as parameters: store.test.ts checks
// it), so each shape's text is kept once and the same string handed to db.one every time: its
// prepared-statement lookup by text (and pg's check of the text against the prepared one) then reads
// a string hashed already instead of flattening and hashing a fresh 2 KB text per call.
const listTexts = new Map<string, string>();
function listText(input: ListPasienInput, built: string): string {
  const shape = `${input.status} ${input.nik ? 1 : 0}${input.noRm ? 1 : 0}${input.tanggalLahir ? 1 : 0}${input.q !== undefined ? 1 : 0}${input.cursor ? 1 : 0}`;
  const known = listTexts.get(shape);
  if (known !== undefined) return known;
  listTexts.set(shape, built);
  return built;
}

/** A tenant scope with its audit-row builder: what every statement of the store needs. */
interface StoreScope extends TenantScope {
  auditInsert: ReturnType<typeof auditInsertFor>;
}

type Placeholder = ReturnType<typeof params>['p'];

/** A value as stored: phone numbers normalized, other text in NFC. */
function storedValue(field: PasienFieldName, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  return field === 'telepon' ? normalizePhone(raw) : raw.normalize('NFC');
}

/** The page query's parts for one listing order: rows, conditions, order and the sort keys selected. */
interface ListShape {
  from: string;
  where: string[];
  order: string;
  keys: string;
}

/** The conditions every listing applies: status and the exact-match filters. */
function listFilters(input: ListPasienInput, p: Placeholder): string[] {
  const where: string[] = [];
  // A literal (from the enum), so that the plan for archived rows can use their partial index.
  if (input.status !== 'all') where.push(input.status === 'archived' ? "p.status = 'archived'" : "p.status = 'active'");
  if (input.nik) where.push(`p.nik = ${p(input.nik)}`);
  if (input.noRm) where.push(`p.no_rm = ${p(input.noRm.padStart(8, '0'))}`);
  if (input.tanggalLahir) where.push(`p.tanggal_lahir = ${p(input.tanggalLahir)}::date`);
  return where;
}

/** A search by name: the name index in key order, continuing after the cursor's (key, id). */
function byNameShape({ db, cursors }: StoreScope, input: ListPasienInput, p: Placeholder, where: string[]): ListShape {
  const term = `records.name_key(${p(input.q)})`;
  where.push(`t.kunci >= ${term}`, `t.kunci < ${term} || chr(1114111)`, `strpos(' ' || t.nama_key, ' ' || ${term}) = t.posisi`);
  if (input.cursor) {
    const [k, id] = cursors.open(input.cursor, 'pasien.nama', db.tenantId);
    where.push(`(t.kunci, t.pasien_id) > (${p(String(k))}, ${p(String(id))}::uuid)`);
  }
  return {
    from: 'records.pasien_nama t join records.pasien p on p.id = t.pasien_id',
    where,
    order: 't.kunci, t.pasien_id',
    keys: 't.kunci as "_k1", t.pasien_id::text as "_k2"',
  };
}

/** Newest medical record number first, continuing below the cursor's number; a name term narrows it. */
function byRmShape({ db, cursors }: StoreScope, input: ListPasienInput, p: Placeholder, where: string[]): ListShape {
  if (input.q !== undefined) {
    const term = `records.name_key(${p(input.q)})`;
    where.push(
      `exists (select 1 from records.pasien_nama t where t.pasien_id = p.id and t.kunci >= ${term} and t.kunci < ${term} || chr(1114111))`,
    );
  }
  if (input.cursor) {
    const [k] = cursors.open(input.cursor, 'pasien.rm', db.tenantId);
    where.push(`p.no_rm < ${p(String(k))}`);
  }
  return { from: 'records.pasien p', where, order: 'p.no_rm desc', keys: 'p.no_rm as "_k1"' };
}

async function listPasien(scope: StoreScope, input: ListPasienInput): Promise<{ items: Pasien[]; nextCursor: string | null }> {
  const { db, cursors, auditInsert } = scope;
  const { values, p } = params();
  const where = listFilters(input, p);
  const byName = input.q !== undefined && !input.nik && !input.noRm;
  const kind = byName ? 'pasien.nama' : 'pasien.rm';
  const { from, order, keys } = byName ? byNameShape(scope, input, p, where) : byRmShape(scope, input, p, where);
  const limit = p(input.limit);
  const page = `select ${SELECT_PASIEN('p')}, ${keys} from ${from} ${where.length ? `where ${where.join(' and ')}` : ''} order by ${order} limit ${limit} + 1`;
  const finalOrder = byName ? '"_k1", "_k2"' : '"_k1" desc';
  const details = { filters: usedFilters(input, ['q', 'noRm', 'nik', 'tanggalLahir', 'cursor']), status: input.status };
  const sql = `with page as (${page}),
    audit as (${auditInsert(p, 'pasien.list', `coalesce((select array_agg(s.id::uuid) from (select "id" as id from page order by ${finalOrder} limit ${limit}) s), '{}')`, details)})
    select * from page order by ${finalOrder}`;
  // By position (the patient's fields, then the sort keys): see TenantDb.one.
  const rows = await db.one<unknown[]>(listText(input, sql), values, { rowMode: 'array' });
  const more = rows.length > input.limit;
  const items = rows.slice(0, input.limit);
  const last = items[items.length - 1];
  const k1 = PASIEN_WIDTH;
  const nextCursor =
    more && last ? cursors.seal(kind, db.tenantId, byName ? [String(last[k1]), String(last[k1 + 1])] : [String(last[k1])]) : null;
  return { items: items.map(toPasienFromArray), nextCursor };
}

async function getPasien({ db, auditInsert }: StoreScope, id: string, extra: AuditExtra): Promise<Pasien> {
  const { values, p } = params();
  const sql = `with found as (select ${SELECT_PASIEN('p')} from records.pasien p where p.id = ${p(id)}::uuid),
    audit as (${auditInsert(p, 'pasien.get', 'array[found.id::uuid]', { ...extra })} from found)
    select * from found`;
  const rows = await db.one<Row>(sql, values);
  if (!rows[0]) throw NOT_FOUND();
  return toPasien(rows[0]);
}

async function createPasien({ db, actor, auditInsert }: StoreScope, input: CreatePasienInput, extra: AuditExtra): Promise<Pasien> {
  const { values, p } = params();
  // Every writable column, absent ones as null: one statement text, prepared once per connection.
  const fields = WRITABLE;
  const columns = fields.map((f) => COLUMNS[f]);
  const exprs = fields.map((f) => {
    const value = storedValue(f, input[f] ?? null);
    return f === 'tanggalLahir' ? `${p(value)}::date` : p(value);
  });
  const sql = `with n as (
      insert into records.rm_counter as c (tenant_id, last_value) values (records.current_tenant(), 1)
      on conflict (tenant_id) do update set last_value = c.last_value + 1 returning last_value),
    created as (
      insert into records.pasien as p (no_rm, created_by, updated_by, ${columns.join(', ')})
      select lpad(n.last_value::text, 8, '0'), ${p(actor.userId)}, ${p(actor.userId)}, ${exprs.join(', ')} from n
      returning ${SELECT_PASIEN('p')}),
    audit as (${auditInsert(p, 'pasien.create', 'array[created.id::uuid]', { ...extra, fields: fields.filter((f) => input[f] !== undefined && input[f] !== null) })} from created)
    select * from created`;
  const rows = await db.one<Row>(sql, values);
  return toPasien(rows[0]!);
}

/** Throws unless the locked row may take these changes: not archived, the expected version, a NIK that fits. */
function checkUpdatable(current: Row | undefined, input: UpdatePasienInput): asserts current is Row {
  const { id: _id, expectedVersion, ...changes } = input;
  if (!current) throw NOT_FOUND();
  if (current.status === 'archived') {
    throw new TRPCError({ code: 'CONFLICT', message: 'patient is archived and cannot be changed', cause: new Archived() });
  }
  if (expectedVersion !== undefined && expectedVersion !== current.version) {
    const message = `patient was changed meanwhile (version ${String(current.version)}, expected ${expectedVersion})`;
    throw new TRPCError({ code: 'CONFLICT', message, cause: new StaleVersion(message) });
  }
  const merged = { ...current, ...changes } as Row;
  if (changes.nik !== undefined || changes.tanggalLahir !== undefined || changes.jenisKelamin !== undefined) {
    const problem = nikMismatch(String(merged.nik), String(merged.tanggalLahir), merged.jenisKelamin as 'L' | 'P');
    if (problem) throw badInput({ nik: [problem] });
  }
}

async function updatePasien({ db, actor, auditInsert }: StoreScope, input: UpdatePasienInput, extra: AuditExtra): Promise<Pasien> {
  const { id, expectedVersion: _expected, ...changes } = input;
  return db.tx(async (q) => {
    const current = (
      await q.query<Row>(`select ${SELECT_PASIEN('p')} from records.pasien p where p.id = $1::uuid for update`, [id], { prepare: true })
    )[0];
    checkUpdatable(current, input);
    const { values, p } = params();
    const fields = (Object.keys(changes) as PasienFieldName[]).filter((f) => changes[f] !== undefined);
    const sets = fields.map((f) => `${COLUMNS[f]} = ${p(storedValue(f, changes[f]))}${f === 'tanggalLahir' ? '::date' : ''}`);
    const changed = fields.filter((f) => String(changes[f]) !== String(current[f]));
    const sql = `with updated as (
        update records.pasien p set ${[...sets, 'version = p.version + 1', 'updated_at = now()', `updated_by = ${p(actor.userId)}`].join(', ')}
        where p.id = ${p(id)}::uuid returning ${SELECT_PASIEN('p')}),
      audit as (${auditInsert(p, 'pasien.update', 'array[updated.id::uuid]', { ...extra, fields: changed })} from updated)
      select * from updated`;
    const rows = await q.query<Row>(sql, values);
    return toPasien(rows[0]!);
  });
}

async function archivePasien({ db, actor, auditInsert }: StoreScope, id: string, reason: string, extra: AuditExtra): Promise<Pasien> {
  const { values, p } = params();
  const sql = `with archived as (
      update records.pasien p set status = 'archived', archived_at = now(), archive_reason = ${p(reason.normalize('NFC'))},
        version = p.version + 1, updated_at = now(), updated_by = ${p(actor.userId)}
      where p.id = ${p(id)}::uuid and p.status = 'active' returning ${SELECT_PASIEN('p')}),
    audit as (${auditInsert(p, 'pasien.archive', 'array[archived.id::uuid]', { ...extra })} from archived)
    select * from archived`;
  const rows = await db.one<Row>(sql, values);
  if (rows[0]) return toPasien(rows[0]);
  const exists = await db.one('select 1 from records.pasien where id = $1::uuid', [id]);
  if (exists.length === 0) throw NOT_FOUND();
  throw new TRPCError({ code: 'CONFLICT', message: 'patient is already archived', cause: new Archived() });
}

export function pasienStore(tenant: TenantScope) {
  const scope: StoreScope = { ...tenant, auditInsert: auditInsertFor(tenant.actor) };
  return {
    listPasien: (input: ListPasienInput): Promise<{ items: Pasien[]; nextCursor: string | null }> => listPasien(scope, input),
    getPasien: (id: string, extra: AuditExtra = {}): Promise<Pasien> => getPasien(scope, id, extra),
    createPasien: (input: CreatePasienInput, extra: AuditExtra = {}): Promise<Pasien> => createPasien(scope, input, extra),
    updatePasien: (input: UpdatePasienInput, extra: AuditExtra = {}): Promise<Pasien> => updatePasien(scope, input, extra),
    archivePasien: (id: string, reason: string, extra: AuditExtra = {}): Promise<Pasien> => archivePasien(scope, id, reason, extra),
  };
}
