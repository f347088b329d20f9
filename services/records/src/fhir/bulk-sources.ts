// Where each exported type's resources come from: one keyset page at a time (rows after the last id
// written, in id order), under the tenant's row-level security, mapped by the same functions the FHIR
// reads use. A page is bounded, so the export's memory does not grow with the hospital's size.
import type { Querier } from '../db/index.ts';
import { SELECT_ENTRY, toEntry } from '../klinis/index.ts';
import type { Row } from '../klinis/index.ts';
import { FROM_KUNJUNGAN, SELECT_KUNJUNGAN, toKunjungan } from '../kunjungan/index.ts';
import { SELECT_PASIEN, toPasien } from '../pasien/index.ts';
import type { ExportType } from './bulk-params.ts';
import { toResource } from './clinical-mapping.ts';
import type { MappingContext, ServedKind } from './clinical-mapping.ts';
import { toEncounter } from './encounter.ts';
import { toPatient } from './mapping.ts';
import { params } from '../db/index.ts';

export interface PageQuery {
  /** The last id written for this type; rows after it come next. */
  after: string | undefined;
  since: string | undefined;
  patientId: string | undefined;
  limit: number;
  /** The lane's share of the ids: from (inclusive) and to (exclusive); every id when unset. */
  range?: LaneRange;
}

export interface LaneRange {
  from?: string;
  to?: string;
}

export interface Page {
  /** The page's NDJSON in UTF-8, one line per resource, each ended by a newline (the buffer's, until its next page). */
  body: Buffer;
  lines: number;
  /** The id of the page's last row: where the next page starts. */
  last: string | undefined;
}

interface Source {
  /** The rows' table, then what a page reads them from (the table as `alias`, and what it joins). */
  table: string;
  from: string;
  alias: string;
  patientColumn: string;
  select: string;
  extraWhere?: string;
  map: (row: Row, ctx: MappingContext) => Record<string, unknown>;
}

const KIND_OF: Record<'Observation' | 'Condition' | 'AllergyIntolerance', ServedKind> = {
  Observation: 'vital',
  Condition: 'diagnosis',
  AllergyIntolerance: 'alergi',
};

function clinical(type: keyof typeof KIND_OF): Source {
  return {
    table: 'records.klinis',
    from: 'records.klinis e',
    alias: 'e',
    patientColumn: 'e.pasien_id',
    select: SELECT_ENTRY,
    extraWhere: `e.jenis = '${KIND_OF[type]}'`,
    map: (row, ctx) => toResource(toEntry(row), ctx),
  };
}

const SOURCES: Record<ExportType, Source> = {
  Patient: {
    table: 'records.pasien',
    from: 'records.pasien p',
    alias: 'p',
    patientColumn: 'p.id',
    select: SELECT_PASIEN('p'),
    map: (row, ctx) => toPatient(toPasien(row), ctx.tenantId),
  },
  Encounter: {
    table: 'records.kunjungan',
    from: FROM_KUNJUNGAN,
    alias: 'k',
    patientColumn: 'k.pasien_id',
    select: SELECT_KUNJUNGAN,
    map: (row, ctx) => toEncounter(toKunjungan(row), ctx.tenantId, ctx.organizationId),
  },
  Observation: clinical('Observation'),
  Condition: clinical('Condition'),
  AllergyIntolerance: clinical('AllergyIntolerance'),
};

/** What every page of a type is filtered by: its kind, `_since`, the one patient (values through `p`). */
function filters(source: Source, page: Pick<PageQuery, 'since' | 'patientId'>, p: (v: unknown) => string): string[] {
  return [
    ...(source.extraWhere ? [source.extraWhere] : []),
    ...(page.since ? [`${source.alias}.updated_at > ${p(page.since)}::timestamptz`] : []),
    ...(page.patientId ? [`${source.patientColumn} = ${p(page.patientId)}::uuid`] : []),
  ];
}

/** The statement of one keyset page of `type` (rows after `after`, within the lane's range, in id order). */
function pageStatement(type: ExportType, page: PageQuery): { sql: string; values: unknown[] } {
  const source = SOURCES[type];
  const { values, p } = params();
  const id = `${source.alias}.id`;
  const where = [
    ...filters(source, page, p),
    ...(page.after ? [`${id} > ${p(page.after)}::uuid`] : []),
    ...(page.range?.from ? [`${id} >= ${p(page.range.from)}::uuid`] : []),
    ...(page.range?.to ? [`${id} < ${p(page.range.to)}::uuid`] : []),
  ];
  const sql = `select ${source.select} from ${source.from} ${where.length ? `where ${where.join(' and ')}` : ''}
    order by ${id} limit ${p(page.limit)}`;
  return { sql, values };
}

/** Pages of the table sampled to draw the lanes' bounds (whole pages: TABLESAMPLE SYSTEM). */
const SAMPLE_PAGES = 1_000;
/** Below this many sampled ids per lane, a sample is too thin to share the rows out evenly. */
const SAMPLED_PER_LANE = 100;

/**
 * `type`'s ids shared out into at most `lanes` ranges of about equal rows, each at least a page's worth
 * (so fewer, down to one, for few rows). The bounds are drawn from a sample of the ids, so ids of any
 * distribution, random or time-ordered, are shared out alike: up to `samplePages` pages of the table
 * (by its size on disk, which is never unknown, unlike its estimated rows), every id of a smaller one.
 * A sample that holds too few of this hospital's rows to share them out gives one lane.
 */
export async function laneRanges(
  q: Querier,
  type: ExportType,
  page: Pick<PageQuery, 'since' | 'patientId' | 'limit'>,
  lanes: number,
  samplePages = SAMPLE_PAGES,
): Promise<LaneRange[]> {
  if (lanes <= 1) return [{}];
  const source = SOURCES[type];
  const [table] = await q.query<{ pages: number }>(
    `select greatest(pg_relation_size($1::regclass) / current_setting('block_size')::int, 1)::float8 as pages`,
    [source.table],
  );
  const percent = Math.min(100, (samplePages / table!.pages) * 100);
  const { values, p } = params();
  const where = filters(source, page, p);
  const sample = await q.query<{ id: string }>(
    `select ${source.alias}.id::text as id from ${source.table} ${source.alias} tablesample system (${percent.toFixed(6)}) repeatable (0)
      ${where.length ? `where ${where.join(' and ')}` : ''} order by ${source.alias}.id`,
    values,
  );
  const estimated = (sample.length * 100) / percent;
  const enough = percent === 100 ? sample.length : Math.floor(sample.length / SAMPLED_PER_LANE);
  const count = Math.max(1, Math.min(lanes, Math.floor(estimated / page.limit), enough));
  const bounds = Array.from({ length: count - 1 }, (_, k) => sample[Math.floor(((k + 1) * sample.length) / count)]!.id);
  return Array.from({ length: count }, (_, k) => ({
    ...(k > 0 ? { from: bounds[k - 1] } : {}),
    ...(k < count - 1 ? { to: bounds[k] } : {}),
  }));
}

/**
 * Every row an export of `type` reads, as one statement without parameters (the pages' query
 * unpaged): what the benchmark hands to `COPY (...) TO STDOUT` as the database's ceiling.
 */
export function allRowsSql(type: ExportType): string {
  return pageStatement(type, { after: undefined, since: undefined, patientId: undefined, limit: 0 }).sql.replace(/ limit \$1$/, '');
}

/**
 * NDJSON lines written straight into one growing buffer as UTF-8: each line's string is garbage as
 * soon as it is copied, while young, and a page is held once, outside the JavaScript heap. One buffer
 * serves a job's pages in turn (reset before each), so pages leave no buffers behind for the
 * collector.
 */
export class NdjsonBuffer {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private length = 0;

  reset(): void {
    this.length = 0;
  }

  append(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8; one more for the newline.
    const need = this.length + line.length * 3 + 1;
    if (need > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(grown, 0, 0, this.length);
      this.buf = grown;
    }
    this.length += this.buf.write(line, this.length);
    this.buf[this.length++] = 10;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/**
 * The next page of `type` for the export, as NDJSON. Each row becomes its line as it arrives and is
 * dropped: what the page holds is its text, never its rows or their resources all at once.
 */
export async function readPage(q: Querier, type: ExportType, page: PageQuery, ctx: MappingContext, out: NdjsonBuffer): Promise<Page> {
  const { sql, values } = pageStatement(type, page);
  const source = SOURCES[type];
  out.reset();
  let last: string | undefined;
  const lines = await q.forEach<Row>(sql, values, (row) => {
    out.append(JSON.stringify(source.map(row, ctx)));
    last = String(row.id);
  });
  return { body: out.bytes(), lines, last };
}

/** The organization the hospital's resources name (its SATUSEHAT id, or empty). */
export async function mappingContext(q: Querier, tenantId: string): Promise<MappingContext> {
  const [row] = await q.query<{ organization_id: string }>(
    `select coalesce((select organization_id from records.tenant_setting), '') as organization_id`,
  );
  return { tenantId, organizationId: row?.organization_id ?? '' };
}
