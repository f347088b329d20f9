// What the recovery suite does through the gateway and reads from the database: patient
// writes and reads as a signed-in tenant admin, the per-tenant snapshot a restore must reproduce, and a
// scan of files for a known patient name.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { makeNik } from '../../services/records/src/pasien/index.ts';
import type { Stack } from '../../scripts/lib/stack.ts';

/** Every patient the suite writes carries this name, so that a file holding it is found by a scan. */
export const KNOWN_NAME = 'Kartika Sulistyowati';

let serial = 0;

export interface Answer {
  status: number;
  retryAfter: boolean;
}

/** pasien.create through the gateway with a session cookie; the new id when it was acknowledged. */
export async function createPatient(stack: Stack, cookie: string): Promise<Answer & { id?: string }> {
  const n = ++serial;
  const nik = makeNik({ province: '32', regency: 73, district: 1 + (n % 90), tanggalLahir: '1988-03-14', jenisKelamin: 'P', serial: n });
  const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: stack.publicUrl, cookie },
    body: JSON.stringify({
      nik,
      nama: KNOWN_NAME,
      tempatLahir: 'Semarang',
      tanggalLahir: '1988-03-14',
      jenisKelamin: 'P',
      alamat: 'Jl. Pemuda 7',
      kotaKabupaten: 'Semarang',
      provinsi: 'Jawa Tengah',
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const answer = { status: res.status, retryAfter: res.headers.has('retry-after') };
  if (res.status !== 200) return (await res.body?.cancel(), answer);
  return { ...answer, id: ((await res.json()) as { result: { data: { id: string } } }).result.data.id };
}

/** pasien.list through the gateway: the status of one page. */
export async function listStatus(stack: Stack, cookie: string): Promise<number> {
  const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`, {
    headers: { origin: stack.publicUrl, cookie },
    signal: AbortSignal.timeout(5_000),
  });
  await res.body?.cancel();
  return res.status;
}

/** Every patient id the tenant of `cookie` is served through the gateway, page by page. */
export async function servedIds(stack: Stack, cookie: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const input: Record<string, unknown> = { limit: 100, ...(cursor ? { cursor } : {}) };
    const res = await fetch(`${stack.gatewayUrl}/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`, {
      headers: { origin: stack.publicUrl, cookie },
    });
    if (res.status !== 200) throw new Error(`pasien.list: ${res.status} ${await res.text()}`);
    const page = ((await res.json()) as { result: { data: { items: { id: string }[]; nextCursor: string | null } } }).result.data;
    for (const item of page.items) ids.add(item.id);
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

export interface Snapshot {
  /** Patient ids per tenant. */
  patients: Record<string, string[]>;
  /** The audit log's last rows, oldest first. */
  auditTail: unknown[];
}

/** Read as the owner (every tenant): what a restore to this moment must give back. */
export async function snapshot(recordsUrl: string, tail = 50): Promise<Snapshot> {
  const client = new pg.Client({ connectionString: recordsUrl });
  await client.connect();
  try {
    const patients: Record<string, string[]> = {};
    const rows = await client.query<{ tenant_id: string; id: string }>('select tenant_id, id::text from records.pasien order by id');
    for (const row of rows.rows) (patients[row.tenant_id] ??= []).push(row.id);
    const audit = await client.query(
      `select id::text, tenant_id, occurred_at::text, actor_user_id, action, pasien_ids::text[], request_id
         from (select * from records.audit_log order by id desc limit $1) t order by id`,
      [tail],
    );
    return { patients, auditTail: audit.rows };
  } finally {
    await client.end();
  }
}

/** Files under `dir` whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle);
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at)) {
      const path = join(at, entry);
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile() && readFileSync(path).includes(bytes)) found.push(path);
    }
  };
  walk(dir);
  return found;
}
