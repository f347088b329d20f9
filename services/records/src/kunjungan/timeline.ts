// The patient's timeline (`klinis.riwayat`): the visits newest first, each with the vital signs,
// diagnoses and note recorded in it, one keyset page per statement with its audit row. The page's
// visits come from kunjungan_pasien (tenant, patient, day); each visit's entries of a kind from
// klinis_visit (visit, kind, time): a page costs the same however many visits and entries the hospital
// holds, and however long the patient's history is.
import { TRPCError } from '@trpc/server';
import type { ClinicalKind } from '../access/index.ts';
import { auditInsertFor } from '../audit/index.ts';
import { params } from '../db/index.ts';
import { versionToEntry } from '../klinis/index.ts';
import type { Row as EntryRow } from '../klinis/index.ts';
import { FieldErrors } from '../server/index.ts';
import type { TenantScope } from '../server/index.ts';
import { SELECT_KUNJUNGAN, toKunjungan } from './rows.ts';
import type { Row } from './rows.ts';
import type { RiwayatInput, TimelinePage } from './schema.ts';

/** The kinds a visit of the timeline carries (allergies are the patient's, not a visit's). */
export const TIMELINE_KINDS = ['vital', 'diagnosis', 'catatan'] as const satisfies readonly ClinicalKind[];
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

// Entries as their stored JSON (the shape klinis_versi keeps, mapped by versionToEntry), in the order
// a clinician reads them: what is in force before what was entered in error.
const ENTRIES = `select to_jsonb(e) - 'tenant_id' as d, e.entered_in_error, e.peran, e.waktu, e.id from records.klinis e
  where e.kunjungan_id = k.id and e.jenis =`;
const KIND_SQL: Record<TimelineKind, string> = {
  vital: `(select coalesce(json_agg(x.d order by x.waktu desc, x.id), '[]') from (${ENTRIES} 'vital') x)`,
  diagnosis: `(select coalesce(json_agg(x.d order by x.entered_in_error, x.peran, x.waktu desc, x.id), '[]') from (${ENTRIES} 'diagnosis') x)`,
  catatan: `(select x.d from (${ENTRIES} 'catatan') x order by x.entered_in_error, x.waktu desc, x.id limit 1)`,
};
// What the cursors say of a cursor they cannot open: nothing about whose timeline it was.
const OTHER_TIMELINE = () =>
  new TRPCError({
    code: 'BAD_REQUEST',
    message: 'cursor is not valid for this listing',
    cause: new FieldErrors({ cursor: ['cursor is not valid for this listing'] }),
  });
const LEFT_OUT: Record<TimelineKind, string> = { vital: `'[]'::json`, diagnosis: `'[]'::json`, catatan: 'null::jsonb' };

/**
 * One page of `pasienId`'s visits with the entries of `kinds` (the kinds the caller may read; the
 * others come back empty). The cursor holds the last visit's sort key and the patient, sealed, so a
 * cursor of another patient's timeline is refused like any other.
 */
export async function timeline(
  { db, actor, cursors }: TenantScope,
  input: RiwayatInput,
  kinds: readonly TimelineKind[],
): Promise<TimelinePage> {
  const { values, p } = params();
  const where = [`k.pasien_id = ${p(input.pasienId)}::uuid`];
  if (input.cursor) {
    const [pasienId, tanggal, createdAt, id] = cursors.open(input.cursor, 'klinis.riwayat', db.tenantId);
    if (pasienId !== input.pasienId) throw OTHER_TIMELINE();
    // Postgres bounds the index range by the row's leading column (the day) and filters the rest.
    where.push(`(k.tanggal, k.created_at, k.id) < (${p(tanggal)}::date, ${p(createdAt)}::timestamptz, ${p(id)}::uuid)`);
  }
  const limit = p(input.limit);
  const details = { filters: input.cursor ? ['cursor'] : [], kinds: kinds.join(',') };
  const entries = TIMELINE_KINDS.map((kind) => `${kinds.includes(kind) ? KIND_SQL[kind] : LEFT_OUT[kind]} as ${kind}`).join(', ');
  const sql = `with keys as (select k.id, k.tanggal, k.created_at from records.kunjungan k where ${where.join(' and ')}
        order by k.tanggal desc, k.created_at desc, k.id desc limit ${limit} + 1),
      shown as (select * from keys order by tanggal desc, created_at desc, id desc limit ${limit}),
      audit as (${auditInsertFor(actor)(p, 'klinis.riwayat', `array[${p(input.pasienId)}::uuid]`, details)})
    select ${SELECT_KUNJUNGAN}, k.created_at::text as sort_created, (select count(*) from keys) > ${limit} as more, ${entries}
    from shown s join records.kunjungan k on k.id = s.id join records.pasien ps on ps.id = k.pasien_id
      join records.poli pl on pl.id = k.poli_id
    order by s.tanggal desc, s.created_at desc, s.id desc`;
  const rows = await db.one<Row>(sql, values);
  const last = rows.at(-1);
  const nextCursor =
    last?.more === true
      ? cursors.seal('klinis.riwayat', db.tenantId, [input.pasienId, String(last.tanggal), String(last.sort_created), String(last.id)])
      : null;
  const items = rows.map((r) => ({
    ...toKunjungan(r),
    vital: (r.vital as EntryRow[]).map(versionToEntry),
    diagnosis: (r.diagnosis as EntryRow[]).map(versionToEntry),
    catatan: r.catatan ? versionToEntry(r.catatan as EntryRow) : null,
  }));
  return { items, nextCursor };
}
