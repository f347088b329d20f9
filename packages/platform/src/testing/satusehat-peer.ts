// A stand-in for SATUSEHAT, the Indonesian Ministry of Health's FHIR R4 platform, which tests cannot
// reach. The FHIR interactions (create, conditional create, search by identifier, read, update) are
// served by a real FHIR server library, @medplum/fhir-router over its in-memory repository, with an
// index by identifier in front (identifier-index.ts) so that a search costs the same however much the
// stand-in holds; before anything is stored it is checked as satusehat-rules.ts says and refused with
// an OperationOutcome.
// In front sits the token endpoint as SATUSEHAT's documentation shows it (form-encoded client
// credentials, an answer with `token_type: "BearerToken"` and `expires_in` as a string), with
// credentials per hospital; every FHIR request must carry a token of the organization its resource
// names. Faults can be injected and every token request and create is counted.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getStatus, isOperationOutcome } from '@medplum/core';
import { FhirRouter } from '@medplum/fhir-router';
import type { FhirRequest } from '@medplum/fhir-router';
import { IdentifierIndexedRepository } from './identifier-index.ts';
import { checkIncoming, IHS_SYSTEM, indexDefinitions, NIK_SYSTEM, referencesOf, Refusal } from './satusehat-rules.ts';

export { NIK_SYSTEM, IHS_SYSTEM, sysIds } from './satusehat-rules.ts';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface PeerTenant {
  organizationId: string;
  clientId: string;
  clientSecret: string;
}

/**
 * `server-error`: 500; `rate-limit`: 429 with Retry-After; `slow`: answers after `delayMs`;
 * `timeout-after-store`: stores the resource and never answers; `duplicate`: refused as a duplicate.
 */
export type PeerFault = 'server-error' | 'rate-limit' | 'slow' | 'timeout-after-store' | 'duplicate';

export interface PeerLogEntry {
  method: string;
  path: string;
  /** The organization of the token the request carried. */
  organizationId: string | undefined;
  status: number;
}

export interface SatusehatPeer {
  /** The platform's base URL: token at `/oauth2/v1/accesstoken`, FHIR at `/fhir-r4/v1`. */
  url: string;
  addTenant(tenant: PeerTenant): void;
  /** A patient the platform knows by NIK; returns its IHS number. */
  addPatient(nik: string, name?: string): Promise<string>;
  /** A practitioner the platform knows by NIK; returns its IHS number. */
  addPractitioner(nik: string, name?: string): Promise<string>;
  /** The next `times` FHIR requests (of `resourceType` when given) meet `fault`. */
  inject(fault: PeerFault, opts?: { times?: number; resourceType?: string; delayMs?: number }): void;
  /** While down, every connection is dropped unanswered (token endpoint included). */
  setDown(down: boolean): void;
  /** Resources of a type the platform holds. */
  resources(type: string): Promise<Json[]>;
  counters: { tokenRequests: number; creates: Record<string, number> };
  log: PeerLogEntry[];
  /** Stored resources whose answer was withheld (`timeout-after-store`). */
  withheld: number;
  stop(): Promise<void>;
}

interface Injected {
  fault: PeerFault;
  times: number;
  resourceType: string | undefined;
  delayMs: number;
}

const FHIR_BASE = '/fhir-r4/v1';
const TOKEN_PATH = '/oauth2/v1/accesstoken';

function outcome(code: string, text: string, severity = 'error'): Json {
  return { resourceType: 'OperationOutcome', issue: [{ severity, code, details: { text } }] };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  type = 'application/fhir+json',
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': type, ...headers });
  res.end(JSON.stringify(body));
}

/** `expiresInSeconds`: the lifetime the token endpoint announces (SATUSEHAT's is about four hours). */
export async function startSatusehatPeer(opts: { expiresInSeconds?: number } = {}): Promise<SatusehatPeer> {
  indexDefinitions();
  const router = new FhirRouter();
  const repo = new IdentifierIndexedRepository();
  const tenants = new Map<string, PeerTenant>();
  const tokens = new Map<string, { organizationId: string; expiresAt: number }>();
  const faults: Injected[] = [];
  const sockets = new Set<Socket>();
  const expiresIn = opts.expiresInSeconds ?? 14_399;
  let down = false;
  // The repository's interactions run one at a time, as a database runs one serializable transaction
  // after another: a conditional create then never misses a resource stored while it looked.
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = turn.then(work);
    turn = result.catch(() => undefined);
    return result;
  };

  const peer: SatusehatPeer = {
    url: '',
    counters: { tokenRequests: 0, creates: {} },
    log: [],
    withheld: 0,
    addTenant: (t) => void tenants.set(t.clientId, t),
    addPatient: (nik, name = 'Pasien') => seedPerson('Patient', nik, name),
    addPractitioner: (nik, name = 'Dokter') => seedPerson('Practitioner', nik, name),
    inject: (fault, o = {}) => void faults.push({ fault, times: o.times ?? 1, resourceType: o.resourceType, delayMs: o.delayMs ?? 0 }),
    setDown(value) {
      down = value;
      if (value) for (const s of sockets) s.destroy();
    },
    resources: async (type) => (await repo.searchResources({ resourceType: type as 'Patient', count: 10_000 })) as Json[],
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  async function seedPerson(type: 'Patient' | 'Practitioner', nik: string, name: string): Promise<string> {
    const ihs = type === 'Patient' ? `P${randomBytes(5).toString('hex')}` : `N${randomBytes(5).toString('hex')}`;
    await inTurn(() =>
      repo.createResource({
        resourceType: type,
        id: ihs,
        identifier: [{ system: NIK_SYSTEM, value: nik }, ...(type === 'Patient' ? [{ system: IHS_SYSTEM, value: ihs }] : [])],
        name: [{ text: name }],
      } as Json as Parameters<typeof repo.createResource>[0]),
    );
    return ihs;
  }

  function takeFault(resourceType: string | undefined): Injected | undefined {
    const i = faults.findIndex((f) => f.times > 0 && (!f.resourceType || f.resourceType === resourceType));
    if (i < 0) return undefined;
    const f = faults[i]!;
    if (--f.times === 0) faults.splice(i, 1);
    return f;
  }

  async function token(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    peer.counters.tokenRequests++;
    const form = new URLSearchParams(await readBody(req));
    const tenant = tenants.get(form.get('client_id') ?? '');
    const formEncoded = req.headers['content-type']?.startsWith('application/x-www-form-urlencoded');
    if (
      req.method !== 'POST' ||
      url.searchParams.get('grant_type') !== 'client_credentials' ||
      !formEncoded ||
      !tenant ||
      tenant.clientSecret !== form.get('client_secret')
    ) {
      const fault = { faultstring: 'Invalid client identifier {0}', detail: { errorcode: 'oauth.v2.InvalidClientIdentifier' } };
      return send(res, 401, { fault }, 'application/json');
    }
    const accessToken = randomBytes(21).toString('base64url');
    tokens.set(accessToken, { organizationId: tenant.organizationId, expiresAt: Date.now() + expiresIn * 1000 });
    const issuedAt = String(Date.now());
    send(
      res,
      200,
      {
        refresh_token_expires_in: '0',
        api_product_list: '[api-satusehat-stg]',
        api_product_list_json: ['api-satusehat-stg'],
        organization_name: 'ihs-stg-1',
        'developer.email': 'ihs@example.test',
        token_type: 'BearerToken',
        issued_at: issuedAt,
        client_id: tenant.clientId,
        access_token: accessToken,
        application_name: randomUUID(),
        scope: '',
        expires_in: String(expiresIn),
        refresh_count: '0',
        status: 'approved',
      },
      'application/json',
    );
  }

  /** Refuses a resource naming a reference the platform does not hold, and a plain create of a known identifier. */
  async function checkStored(body: Json, conditional: boolean): Promise<void> {
    for (const ref of referencesOf(body)) {
      const [type, id] = ref.split('/');
      const found = await repo.readResource(type as 'Patient', id!).catch(() => undefined);
      if (!found) throw new Refusal(400, 'invalid', `${ref} does not exist`);
    }
    const id = (body.identifier as Json[] | undefined)?.[0];
    if (!conditional && id?.system && id.value) {
      const identifier = `${id.system}|${id.value}`;
      const search = {
        method: 'GET',
        url: `/${body.resourceType}?identifier=${encodeURIComponent(identifier)}`,
        pathname: '',
        params: {},
        query: { identifier },
        body: undefined,
      } as FhirRequest;
      const [, bundle] = await router.handleRequest(search, repo);
      const same = ((bundle as Json | undefined)?.entry as Json[] | undefined) ?? [];
      if (same.length) throw new Refusal(400, 'duplicate', `Found duplicate resource with identifier ${id.value}`);
    }
  }

  async function fhir(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const entry: PeerLogEntry = {
      method: req.method ?? 'GET',
      path: url.pathname.slice(FHIR_BASE.length),
      organizationId: undefined,
      status: 0,
    };
    peer.log.push(entry);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      entry.status = status;
      send(res, status, body, 'application/fhir+json', headers);
    };
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const held = bearer ? tokens.get(bearer) : undefined;
    if (!held || held.expiresAt < Date.now()) return answer(401, outcome('login', 'Access token is invalid or expired'));
    entry.organizationId = held.organizationId;
    const text = await readBody(req);
    const body = text ? (JSON.parse(text) as Json) : undefined;
    const resourceType = entry.path.split(/[/?]/)[1];
    const fault = takeFault(resourceType);
    if (fault?.fault === 'server-error') return answer(500, outcome('exception', 'Internal server error'));
    if (fault?.fault === 'rate-limit') return answer(429, outcome('throttled', 'Too many requests'), { 'retry-after': '1' });
    if (fault?.fault === 'duplicate') return answer(400, outcome('duplicate', 'Found duplicate resource'));
    if (fault?.fault === 'slow') await new Promise((r) => setTimeout(r, fault.delayMs));
    const conditional = typeof req.headers['if-none-exist'] === 'string';
    const query = Object.fromEntries(url.searchParams);
    const request = { method: req.method, url: entry.path, pathname: '', params: {}, query, body, headers: req.headers } as FhirRequest;
    const handled = await inTurn(async () => {
      if (body && (req.method === 'POST' || req.method === 'PUT')) {
        try {
          checkIncoming(body, held.organizationId);
          await checkStored(body, conditional || req.method === 'PUT');
        } catch (err) {
          if (err instanceof Refusal) return err;
          throw err;
        }
      }
      return router.handleRequest(request, repo);
    });
    if (handled instanceof Refusal) return answer(handled.status, outcome(handled.code, handled.message));
    const [result, resource] = handled;
    const status = getStatus(result);
    if (status === 201 && resourceType) peer.counters.creates[resourceType] = (peer.counters.creates[resourceType] ?? 0) + 1;
    if (fault?.fault === 'timeout-after-store') {
      peer.withheld++;
      entry.status = -1;
      return; // stored, never answered: the client's timeout (or the test's kill) ends it
    }
    answer(status, resource && !isOperationOutcome(resource) ? resource : result);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    if (down) {
      // Counted even while down: a client that asks for tokens in a storm shows here.
      if (url.pathname === TOKEN_PATH) peer.counters.tokenRequests++;
      return void req.socket.destroy();
    }
    const work =
      url.pathname === TOKEN_PATH
        ? token(req, res, url)
        : url.pathname.startsWith(FHIR_BASE)
          ? fhir(req, res, url)
          : Promise.resolve(send(res, 404, outcome('not-found', 'Not found')));
    work.catch((err: Error) => {
      if (!res.headersSent) send(res, 500, outcome('exception', err.message));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return peer;
}
