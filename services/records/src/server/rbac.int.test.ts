// Role and scope checks, generated from the permission data: every role against every procedure,
// read-only and write-only credentials, and the ways a principal can be missing or false. The router
// serves exactly the matrix's procedures (router.test.ts), so a new one fails here until it has a
// sample input below.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { signPrincipal } from '@simrs/contracts/principal';
import { ROLES } from '@simrs/contracts/access';
import { PROCEDURES, roleMay } from '../access/index.ts';
import type { ProcedureName } from '../access/index.ts';
import { assertEnvelope, dataOf, newPasien, startRecords } from '../testing/index.ts';
import type { RecordsUnderTest } from '../testing/index.ts';

const ALL = Object.keys(PROCEDURES) as ProcedureName[];
const BP = [
  { key: 'sistolik', value: 120, unit: 'mm[Hg]' },
  { key: 'diastolik', value: 80, unit: 'mm[Hg]' },
];
const REASON = 'koreksi data klinis';

describe('RBAC and scopes', () => {
  let r: RecordsUnderTest;
  let admin: string;
  let doctor: string;
  let n = 100;
  let poliId: string;
  const fresh = async () => dataOf<{ id: string }>(await r.mutate('pasien.create', newPasien(++n), admin)).id;
  /** A visit of a fresh patient at the clinic every role's user is assigned to, moved on to `status`. */
  const visit = async (status: 'planned' | 'arrived' | 'in-progress') => {
    const v = dataOf<{ id: string; pasienId: string }>(await r.mutate('kunjungan.register', { pasienId: await fresh(), poliId }, admin));
    if (status !== 'planned') await r.owner.query('update records.kunjungan set status = $2 where id = $1', [v.id, status]);
    return v;
  };
  /** A clinical entry of `kind`, written by the doctor (who may record every kind) in a fresh visit. */
  const entry = async (kind: 'vital' | 'diagnosis' | 'alergi' | 'catatan'): Promise<string> => {
    const v = await visit('in-progress');
    const input = {
      vital: { kunjunganId: v.id, measurements: BP },
      diagnosis: { kunjunganId: v.id, code: 'J06.9', rank: 'primary' },
      alergi: { pasienId: v.pasienId, substance: 'Amoksisilin', category: 'medication' },
      catatan: { kunjunganId: v.id, subjective: 'Batuk tiga hari' },
    }[kind];
    const written = dataOf<{ id: string } | { id: string }[]>(await r.mutate(`${kind}.record`, input, doctor));
    return Array.isArray(written) ? written[0]!.id : written.id;
  };

  /** A valid input for each procedure, so that only the guard can refuse it. */
  const inputFor = async (name: ProcedureName): Promise<unknown> => {
    switch (name) {
      case 'pasien.list':
        return { limit: 5 };
      case 'pasien.get':
        return { id: await fresh() };
      case 'pasien.create':
        return newPasien(++n);
      case 'pasien.update':
        return { id: await fresh(), alamat: 'Jl. Pahlawan No. 9' };
      case 'pasien.archive':
        return { id: await fresh(), reason: 'duplicate registration' };
      case 'audit.list':
      case 'btg.list':
        return { limit: 5 };
      case 'poli.list':
      case 'poli.staff':
      case 'pengaturan.get':
        return {};
      case 'poli.create':
        return { kode: `P${++n}`, nama: 'Poli Gigi' };
      case 'poli.update':
        return { id: poliId, nama: 'Poli Umum' };
      case 'poli.assign':
        return { poliId, userId: `user-${++n}` };
      case 'poli.unassign':
        n++;
        dataOf(await r.mutate('poli.assign', { poliId, userId: `user-${n}` }, admin));
        return { poliId, userId: `user-${n}` };
      case 'pengaturan.update':
        return { relationshipDays: 30 };
      case 'kunjungan.list':
        return { poliId };
      case 'kunjungan.get':
      case 'kunjungan.arrive':
      case 'kunjungan.cancel':
        return name === 'kunjungan.cancel'
          ? { id: (await visit('planned')).id, reason: 'pasien batal' }
          : { id: (await visit('planned')).id };
      case 'kunjungan.register':
        return { pasienId: await fresh(), poliId };
      case 'kunjungan.start':
        return { id: (await visit('arrived')).id };
      case 'kunjungan.finish':
        return { id: (await visit('in-progress')).id };
      case 'klinis.riwayat':
        return { pasienId: (await visit('planned')).pasienId };
      case 'btg.open':
        return { pasienId: await fresh(), reason: 'emergency consultation in the ward' };
      case 'kode.search':
        return { q: 'j06' };
      case 'satusehat.connection':
      case 'satusehat.test':
        return undefined;
      case 'satusehat.connect':
        return { environment: 'staging', clientId: 'client-rbac', clientSecret: 'secret-rbac' };
      case 'satusehat.practitioner':
        return { userId: 'dr-rbac', nik: '3173010203800001' };
      case 'satusehat.list':
        return { state: 'failed' };
      case 'satusehat.status':
      case 'satusehat.resend':
        return { kunjunganId: (await visit('planned')).id };
      default:
        return clinicalInputFor(name);
    }
  };
  /** The clinical entries' procedures: the same five for every kind. */
  const clinicalInputFor = async (name: ProcedureName): Promise<unknown> => {
    const [kind, op] = name.split('.') as ['vital' | 'diagnosis' | 'alergi' | 'catatan', string];
    const record = {
      vital: async () => ({ kunjunganId: (await visit('arrived')).id, measurements: BP }),
      diagnosis: async () => ({ kunjunganId: (await visit('in-progress')).id, code: 'J06.9', rank: 'primary' }),
      alergi: async () => ({ pasienId: (await visit('planned')).pasienId, noneKnown: true }),
      catatan: async () => ({ kunjunganId: (await visit('in-progress')).id, assessment: 'ISPA' }),
    };
    const amend = {
      vital: { measurements: BP },
      diagnosis: { code: 'J06.9', rank: 'primary' },
      alergi: { substance: 'Udang', category: 'food' },
      catatan: { plan: 'Kontrol tiga hari lagi' },
    };
    switch (op) {
      case 'list':
        return kind === 'alergi' ? { pasienId: (await visit('planned')).pasienId } : { kunjunganId: (await visit('planned')).id };
      case 'history':
        return { id: await entry(kind) };
      case 'record':
        return record[kind]();
      case 'amend':
        return { id: await entry(kind), expectedVersion: 1, reason: REASON, ...amend[kind] };
      case 'retract':
        return { id: await entry(kind), expectedVersion: 1, reason: REASON };
      default:
        throw new Error(`no sample input for ${name}: add one to rbac.int.test.ts`);
    }
  };
  /** Allowed: answered; finishing is allowed and then refused for want of a primary diagnosis. */
  const assertAllowed = (name: ProcedureName, reply: Awaited<ReturnType<typeof call>>) => {
    if (name === 'kunjungan.finish') assert.match(assertEnvelope(reply, 409, 'CONFLICT').message, /a primary diagnosis is required/);
    else if (name === 'satusehat.resend') assert.match(assertEnvelope(reply, 404, 'NOT_FOUND').message, /no finished visit/);
    else dataOf(reply);
  };
  const call = (name: ProcedureName, input: unknown, principal?: string) =>
    PROCEDURES[name].kind === 'query' ? r.query(name, input, principal) : r.mutate(name, input, principal);

  before(async () => {
    r = await startRecords('rbac');
    admin = await r.principal('rs-demo', 'tenant_admin');
    doctor = await r.principal('rs-demo', 'doctor', { scopes: ['simrs:read', 'simrs:write'] });
    await r.owner.query(
      "insert into records.kode (system, code, display_en, display_id) values ('icd-10', 'J06.9', 'Acute upper respiratory infection', 'Infeksi saluran napas atas akut')",
    );
    poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    // Every role's user works at the clinic, so that only the role decides: the treatment relationship
    // holds for every visit below.
    for (const role of ROLES) dataOf(await r.mutate('poli.assign', { poliId, userId: `${role}@rs-demo` }, admin));
  });
  after(async () => {
    await r?.stop();
  });

  for (const role of ROLES) {
    for (const name of ALL) {
      const allowed = roleMay(role, PROCEDURES[name].permission);
      test(`${role} ${allowed ? 'may' : 'may not'} call ${name}`, async () => {
        const principal = await r.principal('rs-demo', role, { scopes: ['simrs:read', 'simrs:write'] });
        const reply = await call(name, await inputFor(name), principal);
        if (allowed) assertAllowed(name, reply);
        else assert.match(assertEnvelope(reply, 403, 'FORBIDDEN').message, new RegExp(`role ${role} may not`));
      });
    }
  }

  test('a read-only credential can query and cannot mutate', async () => {
    const readOnly = await r.principal('rs-demo', 'tenant_admin', { scopes: ['simrs:read'], clientId: 'client-ro' });
    for (const name of ALL) {
      const reply = await call(name, await inputFor(name), readOnly);
      if (PROCEDURES[name].kind === 'query' && roleMay('tenant_admin', PROCEDURES[name].permission)) dataOf(reply);
      else if (PROCEDURES[name].kind === 'query') assertEnvelope(reply, 403, 'FORBIDDEN');
      else assert.match(assertEnvelope(reply, 403, 'FORBIDDEN').message, /simrs:write/);
    }
    assertEnvelope(await r.rest('POST', '/pasien', { principal: readOnly, body: newPasien(++n) }), 403, 'FORBIDDEN');
  });

  test('a write-only or scopeless credential cannot query', async () => {
    const writeOnly = await r.principal('rs-demo', 'tenant_admin', { scopes: ['simrs:write'] });
    const none = await r.principal('rs-demo', 'tenant_admin', { scopes: ['openid'] });
    assert.match(assertEnvelope(await r.query('pasien.list', {}, writeOnly), 403).message, /simrs:read/);
    dataOf(await r.mutate('pasien.create', newPasien(++n), writeOnly));
    for (const name of ALL) assertEnvelope(await call(name, await inputFor(name), none), 403, 'FORBIDDEN');
  });

  test('a role records does not know may do nothing', async () => {
    const janitor = await r.principal('rs-demo', 'janitor', { scopes: ['simrs:read', 'simrs:write'] });
    for (const name of ALL) assertEnvelope(await call(name, await inputFor(name), janitor), 403, 'FORBIDDEN');
  });

  test('no principal, a forged, expired, unsigned or malformed one: 401 everywhere but healthCheck', async () => {
    const claims = { userId: 'mallory', tenantId: 'rs-demo', role: 'tenant_admin', scopes: ['simrs:read', 'simrs:write'] };
    const forged = await signPrincipal(claims, 'z'.repeat(64));
    const expired = await signPrincipal(claims, r.secret, -300);
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'simrs-principal+jwt' })).toString('base64url')}.${Buffer.from(
      JSON.stringify({
        p: { userId: 'u', tenantId: 'rs-demo', role: 'tenant_admin', scopes: ['simrs:read'] },
        iss: 'simrs-gateway',
        aud: 'simrs-records',
        exp: 9999999999,
      }),
    ).toString('base64url')}.`;
    const valid = await r.principal('rs-demo', 'tenant_admin');
    const tampered = valid.replace(
      /\.([^.]+)\./,
      (_m, payload: string) => `.${payload.slice(0, -2)}${payload.slice(-2) === 'fQ' ? 'fX' : 'fQ'}.`,
    );
    for (const principal of [undefined, forged, expired, unsigned, tampered, 'not-a-jwt', '']) {
      for (const name of ALL) {
        const input = PROCEDURES[name].kind === 'query' ? {} : newPasien(++n);
        assertEnvelope(await call(name, input, principal), 401, 'UNAUTHORIZED');
      }
      assertEnvelope(await r.rest('GET', '/pasien', { principal }), 401, 'UNAUTHORIZED');
    }
    assert.deepEqual((await r.query('healthCheck', undefined)).body, { result: { data: null } });
    assert.equal((await r.rest('GET', '/health')).status, 200);
  });
});
