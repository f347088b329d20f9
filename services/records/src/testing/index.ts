// Test support for the database-backed tests: a throwaway database, the real records process
// connected as the application role, principals signed like the gateway signs them, and small
// tRPC/REST/FHIR callers (FHIR bodies checked against the R4 definitions); the clinical fixtures are
// klinis.ts's, and the clinical FHIR ones fhir-klinis.ts's. Not imported by production code.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { signPrincipal } from '@simrs/contracts/principal';
import { SESSION_SCOPES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';
import { createLogger } from '@simrs/platform/logger';
import { freePort, startService, throwawayDatabase, waitForReady } from '@simrs/platform/testing';
import { migrateRecords } from '../db/index.ts';
import { newPasien } from './base.ts';
import type { RecordsUnderTest, Reply } from './base.ts';

export { dataOf, newPasien } from './base.ts';
export type { RecordsUnderTest, Reply } from './base.ts';
export { BP, chart, clinicalCalls, clinicalInput, KINDS, loadCodes, restCaller } from './klinis.ts';
export type { Chart, Kind } from './klinis.ts';
export * from './fhir-klinis.ts';
export * from './satusehat.ts';

export function appUrlFor(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = 'records_app';
  url.password = 'records_app';
  return url.toString();
}

export interface MigratedDatabase {
  /** The owner's URL, and the application role's (as migrateRecords provisions it). */
  url: string;
  appUrl: string;
  /** Connected as the owner, which row-level security does not bind. */
  owner: pg.Client;
  /** Closes the owner's connection and drops the database. */
  drop(): Promise<void>;
}

/** A throwaway database with records' migrations applied, for tests that need no records process. */
export async function migratedDatabase(label: string): Promise<MigratedDatabase> {
  const db = await throwawayDatabase(`records_${label}`);
  const appUrl = appUrlFor(db.url);
  await migrateRecords(db.url, appUrl, createLogger('records-test', 'silent'));
  const owner = new pg.Client({ connectionString: db.url });
  await owner.connect();
  return {
    url: db.url,
    appUrl,
    owner,
    async drop() {
      await owner.end();
      await db.drop();
    },
  };
}

async function reply<T>(res: Response): Promise<Reply<T>> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: body as T, headers: res.headers };
}

export async function startRecords(label: string, env: Record<string, string> = {}): Promise<RecordsUnderTest> {
  const db = await throwawayDatabase(`records_${label}`);
  const port = await freePort();
  const secret = randomBytes(32).toString('hex');
  const prefix = env.INTEGRATION_PREFIX ?? '/api/v1';
  const appUrl = appUrlFor(db.url);
  const proc = startService('records', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATABASE_URL: appUrl,
    MIGRATION_DATABASE_URL: db.url,
    PRINCIPAL_SECRET: secret,
    LOG_LEVEL: 'warn',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForReady(`${url}/readyz`, 30_000);
  } catch (err) {
    await proc.stop();
    await db.drop();
    throw new Error(`records did not start: ${(err as Error).message}\n${proc.lines.join('\n')}`, { cause: err });
  }
  const owner = new pg.Client({ connectionString: db.url });
  await owner.connect();

  const withPrincipal = (principal?: string, headers: Record<string, string> = {}) => ({
    ...(principal ? { 'x-simrs-principal': principal } : {}),
    ...headers,
  });

  return {
    url,
    ownerUrl: db.url,
    appUrl,
    secret,
    prefix,
    proc,
    owner,
    principal(tenantId, role, overrides = {}) {
      const scopes = overrides.scopes ?? [...(SESSION_SCOPES[role as Role] ?? ['simrs:read', 'simrs:write'])];
      return signPrincipal({ userId: `${role}@${tenantId}`, tenantId, role, sessionId: 'sess-1', ...overrides, scopes }, secret);
    },
    async query(path, input, principal, headers) {
      const qs = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
      return reply(await fetch(`${url}/trpc/${path}${qs}`, { headers: withPrincipal(principal, headers) }));
    },
    async mutate(path, input, principal, headers) {
      return reply(
        await fetch(`${url}/trpc/${path}`, {
          method: 'POST',
          headers: withPrincipal(principal, { 'content-type': 'application/json', ...headers }),
          body: JSON.stringify(input),
        }),
      );
    },
    async rest(method, path, opts = {}) {
      const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      return reply(
        await fetch(`${url}${prefix}${path}`, {
          method,
          headers: withPrincipal(opts.principal, {
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...opts.headers,
          }),
          ...(body !== undefined ? { body } : {}),
        }),
      );
    },
    async stop() {
      await owner.end().catch(() => {});
      await proc.stop();
      await db.drop();
    },
  };
}

/** Rows of a table as the owner sees them (all tenants). */
export async function countRows(owner: pg.Client, table: string, where = 'true', values: unknown[] = []): Promise<number> {
  const { rows } = await owner.query<{ n: number }>(`select count(*)::int as n from ${table} where ${where}`, values);
  return rows[0]!.n;
}

interface EnvelopeBody {
  error: {
    message: string;
    code: number;
    data: { code: string; httpStatus: number; path: string; fieldErrors?: Record<string, string[]> };
  };
}

/** Asserts the seed's error envelope with the given status (and tRPC code when given). */
export function assertEnvelope(reply: Reply, status: number, code?: string): EnvelopeBody['error'] {
  const body = reply.body as EnvelopeBody;
  const shown = JSON.stringify(reply.body).slice(0, 400);
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${shown}`);
  if (typeof body !== 'object' || body === null || typeof body.error !== 'object') throw new Error(`not an envelope: ${shown}`);
  const e = body.error;
  if (
    typeof e.message !== 'string' ||
    typeof e.code !== 'number' ||
    typeof e.data?.code !== 'string' ||
    e.data.httpStatus !== status ||
    typeof e.data.path !== 'string'
  ) {
    throw new Error(`envelope fields missing or wrong: ${shown}`);
  }
  if (code && e.data.code !== code) throw new Error(`expected ${code}, got ${e.data.code}: ${shown}`);
  return e;
}

// ---- FHIR --------------------------------------------------------------------------------------

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const NIK = 'https://fhir.kemkes.go.id/id/nik';
const BIRTH_PLACE = 'https://fhir.kemkes.go.id/r4/StructureDefinition/birthPlace';

/** A FHIR call; its body, when it has one, must be valid FHIR R4 (or the SMART configuration). */
export async function fhirCall(
  r: RecordsUnderTest,
  method: string,
  path: string,
  opts: { principal?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply<Json>> {
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await fetch(path.startsWith('http') ? path : `${r.url}${r.prefix}/fhir${path}`, {
    method,
    headers: {
      ...(opts.principal ? { 'x-simrs-principal': opts.principal } : {}),
      ...(body !== undefined ? { 'content-type': 'application/fhir+json' } : {}),
      ...opts.headers,
    },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  const json = text ? (JSON.parse(text) as Json) : {};
  if (text && res.headers.get('content-type')?.startsWith('application/fhir+json'))
    assertValidFhir(json, `${method} ${path} (${res.status})`);
  return { status: res.status, body: json, headers: res.headers };
}

export function assertOutcome(reply: Reply<Json>, status: number, code?: string): string {
  assert.equal(reply.status, status, JSON.stringify(reply.body).slice(0, 400));
  assert.equal(reply.body.resourceType, 'OperationOutcome');
  assert.match(reply.headers.get('content-type') ?? '', /^application\/fhir\+json/);
  if (code) assert.equal(reply.body.issue[0].code, code, JSON.stringify(reply.body.issue));
  return String(reply.body.issue[0].diagnostics);
}

/** A Patient as an integrator writes it, from the test kit's registration fields. */
export function patientFor(n: number, overrides: Record<string, unknown> = {}): Json {
  const p = newPasien(n, overrides) as Record<string, string>;
  return {
    resourceType: 'Patient',
    identifier: [{ use: 'official', system: NIK, value: p.nik }],
    name: [{ use: 'official', text: p.nama }],
    gender: p.jenisKelamin === 'P' ? 'female' : 'male',
    birthDate: p.tanggalLahir,
    telecom: [{ system: 'phone', value: '+6281234567890', use: 'mobile' }],
    address: [{ use: 'home', line: [p.alamat], city: p.kotaKabupaten, state: p.provinsi, country: 'ID' }],
    extension: [{ url: BIRTH_PLACE, valueAddress: { city: p.tempatLahir } }],
  };
}
