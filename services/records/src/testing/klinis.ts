// Test support for the clinical entries: a patient's chart with one entry of each kind in a visit in
// progress, a valid input for every need-to-know procedure against that chart (so that only access
// can refuse it), and a REST caller that finds a procedure's operation in the OpenAPI document.
import type { ProcedureName } from '../access/index.ts';
import { NEEDS_RELATIONSHIP, PROCEDURES } from '../access/index.ts';
import { dataOf, newPasien } from './base.ts';
import type { RecordsUnderTest, Reply } from './base.ts';

export const KINDS = ['vital', 'diagnosis', 'alergi', 'catatan'] as const;
export type Kind = (typeof KINDS)[number];

export interface Chart {
  pasienId: string;
  visit: string;
  /** One entry of each kind, at version 1. */
  ids: Record<Kind, string>;
}

export const BP = (sistolik: number, diastolik: number) => [
  { key: 'sistolik', value: sistolik, unit: 'mm[Hg]' },
  { key: 'diastolik', value: diastolik, unit: 'mm[Hg]' },
];

/** The ICD-10 codes the charts use (records.kode is the platform's, loaded by the owner). */
export async function loadCodes(r: RecordsUnderTest): Promise<void> {
  await r.owner.query(
    `insert into records.kode (system, code, display_en, display_id) values
       ('icd-10', 'J06.9', 'Acute upper respiratory infection', 'Infeksi saluran napas atas akut'),
       ('icd-10', 'I10', 'Essential hypertension', 'Hipertensi esensial')
     on conflict do nothing`,
  );
}

/**
 * A new patient of `tenant` with a visit at `poliId`, started by `doctor` (who must work at the
 * clinic), and one entry of each kind recorded by that doctor.
 */
export async function chart(r: RecordsUnderTest, n: number, poliId: string, doctor: string, tenant = 'rs-demo'): Promise<Chart> {
  const admin = await r.principal(tenant, 'tenant_admin');
  const clerk = await r.principal(tenant, 'registration_clerk');
  const pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(n), admin)).id;
  const visit = dataOf<{ id: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, clerk)).id;
  dataOf(await r.mutate('kunjungan.arrive', { id: visit }, clerk));
  dataOf(await r.mutate('kunjungan.start', { id: visit }, doctor));
  const [vital] = dataOf<{ id: string }[]>(await r.mutate('vital.record', { kunjunganId: visit, measurements: BP(120, 80) }, doctor));
  const one = async (kind: Kind, input: Record<string, unknown>) =>
    dataOf<{ id: string }>(await r.mutate(`${kind}.record`, input, doctor)).id;
  const ids = {
    vital: vital!.id,
    diagnosis: await one('diagnosis', { kunjunganId: visit, code: 'J06.9', rank: 'primary' }),
    alergi: await one('alergi', { pasienId, substance: 'Amoksisilin', category: 'medication' }),
    catatan: await one('catatan', { kunjunganId: visit, subjective: 'Batuk tiga hari' }),
  };
  return { pasienId, visit, ids };
}

const REASON = 'koreksi oleh dokter';
const RECORD: Record<Kind, (c: Chart) => Record<string, unknown>> = {
  vital: (c) => ({ kunjunganId: c.visit, measurements: [{ key: 'nadi', value: 80, unit: '/min' }] }),
  diagnosis: (c) => ({ kunjunganId: c.visit, code: 'I10', rank: 'secondary' }),
  alergi: (c) => ({ pasienId: c.pasienId, substance: 'Udang', category: 'food' }),
  catatan: (c) => ({ kunjunganId: c.visit, plan: 'Kontrol tiga hari lagi' }),
};
const AMEND: Record<Kind, Record<string, unknown>> = {
  vital: { measurements: BP(125, 80) },
  diagnosis: { code: 'J06.9', rank: 'primary', note: 'Dikoreksi' },
  alergi: { substance: 'Amoksisilin', category: 'medication', criticality: 'high' },
  catatan: { subjective: 'Batuk empat hari' },
};

/** The need-to-know procedures the router serves, each with a valid input against `c`. */
export function clinicalCalls(c: Chart, served: (name: string) => boolean): [ProcedureName, Record<string, unknown>][] {
  const names = (Object.keys(PROCEDURES) as ProcedureName[]).filter((n) => NEEDS_RELATIONSHIP[PROCEDURES[n].permission] && served(n));
  return names.map((name) => [name, clinicalInput(name, c)]);
}

export function clinicalInput(name: ProcedureName, c: Chart): Record<string, unknown> {
  if (name === 'klinis.riwayat') return { pasienId: c.pasienId };
  if (name === 'kunjungan.start' || name === 'kunjungan.finish') return { id: c.visit };
  const [kind, op] = name.split('.') as [Kind, string];
  if (op === 'list') return kind === 'alergi' ? { pasienId: c.pasienId } : { kunjunganId: c.visit };
  if (op === 'history') return { id: c.ids[kind] };
  if (op === 'record') return RECORD[kind](c);
  if (op === 'amend') return { id: c.ids[kind], expectedVersion: 1, reason: REASON, ...AMEND[kind] };
  if (op === 'retract') return { id: c.ids[kind], expectedVersion: 1, reason: REASON };
  throw new Error(`no clinical input for ${name}`);
}

interface Operation {
  method: string;
  path: string;
}

/**
 * Calls a procedure over REST as the OpenAPI document describes it: path parameters from the input,
 * the rest as the query (GET) or the JSON body.
 */
export async function restCaller(r: RecordsUnderTest) {
  const doc = (await (await fetch(`${r.url}${r.prefix}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const ops = new Map<string, Operation>();
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) ops.set(op.operationId.replace(/-/g, '.'), { method: method.toUpperCase(), path });
  return (name: string, input: Record<string, unknown>, principal?: string): Promise<Reply> => {
    const op = ops.get(name);
    if (!op) throw new Error(`${name} has no REST operation`);
    const rest = { ...input };
    const path = op.path.replace(/\{(\w+)\}/g, (_m, key: string) => {
      const value = String(rest[key]);
      delete rest[key];
      return encodeURIComponent(value);
    });
    if (op.method !== 'GET') return r.rest(op.method, path, { principal, body: rest });
    const query = new URLSearchParams(Object.entries(rest).map(([k, v]) => [k, String(v)])).toString();
    return r.rest('GET', query ? `${path}?${query}` : path, { principal });
  };
}
