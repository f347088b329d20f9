// Test support for SATUSEHAT sending: a records process whose worker talks to the stand-in peer
// (@simrs/platform/testing/satusehat-peer), more worker processes on the same database, and a hospital
// made ready to send (organization id, connection, a clinic, a doctor known to the platform by NIK) that
// finishes visits of patients the platform knows.
import { randomBytes } from 'node:crypto';
import { PRINCIPAL_TTL_SECONDS } from '@simrs/contracts/principal';
import { freePort, startService, testRedisUrl, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import type { SatusehatPeer } from '@simrs/platform/testing/satusehat-peer';
import { makeNik } from '../pasien/index.ts';
import { dataOf, newPasien } from './base.ts';
import type { RecordsUnderTest } from './base.ts';
import { BP } from './klinis.ts';

/** Short waits, so that retries, leases and the token's one-a-minute rule play out within a test; the mechanism is the same. */
export const FAST_SATUSEHAT: Record<string, string> = {
  SATUSEHAT_POLL_MS: '50',
  SATUSEHAT_RETRY_BASE_MS: '100',
  SATUSEHAT_RETRY_MAX_MS: '800',
  SATUSEHAT_TIMEOUT_MS: '1500',
  SATUSEHAT_LEASE_MS: '2000',
  SATUSEHAT_TOKEN_RETRY_MS: '1000',
};

export function satusehatEnv(peer: SatusehatPeer, extra: Record<string, string> = {}): Record<string, string> {
  return { REDIS_URL: testRedisUrl, SATUSEHAT_STAGING_URL: peer.url, SATUSEHAT_PRODUCTION_URL: peer.url, ...FAST_SATUSEHAT, ...extra };
}

/** Another records process on the same database (its worker shares the outbox); the caller stops it. */
export async function startWorker(r: RecordsUnderTest, peer: SatusehatPeer, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const proc = startService('records-worker', 'services/records', {
    HOST: '127.0.0.1',
    HTTP_PORT: String(port),
    DATABASE_URL: r.appUrl,
    MIGRATE_ON_START: 'false',
    PRINCIPAL_SECRET: r.secret,
    LOG_LEVEL: 'warn',
    ...satusehatEnv(peer, extra),
  });
  await waitForReady(`http://127.0.0.1:${port}/readyz`, 30_000);
  return proc;
}

export interface Hospital {
  tenant: string;
  organizationId: string;
  clientId: string;
  /** What the platform takes as this hospital's client secret. */
  clientSecret: string;
  /** The administrator's and the doctor's principals as minted at the start (a minute's life; finishedVisit mints its own). */
  admin: string;
  doctor: string;
  /** The doctor's user id and the NIK the platform knows them by. */
  doctorUserId: string;
  doctorNik: string;
  poliId: string;
  /** A patient the platform knows, registered, seen by the doctor (diagnosis, blood pressure) and finished. */
  finishedVisit(opts?: { knownToPlatform?: boolean }): Promise<{ pasienId: string; visit: string; noKunjungan: string }>;
}

let serial = 5_000;

/** What hospital() needs of records: the test kit's records process, or a stack's records reached directly. */
export type RecordsCaller = Pick<RecordsUnderTest, 'principal' | 'mutate' | 'owner'>;

/** A role's principal, minted again once half its life has gone: a long run (the bench's thousand visits) outlives one. */
function freshPrincipal(r: RecordsCaller, tenant: string, role: string, overrides: { userId?: string } = {}): () => Promise<string> {
  let held: { token: Promise<string>; at: number } | undefined;
  return () => {
    if (!held || Date.now() - held.at > (PRINCIPAL_TTL_SECONDS * 1000) / 2)
      held = { token: r.principal(tenant, role, overrides), at: Date.now() };
    return held.token;
  };
}

/** A hospital (a fresh tenant id unless given, so Redis keys never meet another run's) ready to send to `peer`. */
export async function hospital(r: RecordsCaller, peer: SatusehatPeer, name: string, tenantId?: string): Promise<Hospital> {
  const tenant = tenantId ?? `${name}-${randomBytes(4).toString('hex')}`;
  const organizationId = String(100_000_000 + Math.floor(Math.random() * 899_999_999));
  const clientId = `client-${tenant}`;
  const clientSecret = `secret-${randomBytes(16).toString('hex')}`;
  peer.addTenant({ organizationId, clientId, clientSecret });
  const as = {
    admin: freshPrincipal(r, tenant, 'tenant_admin'),
    clerk: freshPrincipal(r, tenant, 'registration_clerk'),
    doctor: freshPrincipal(r, tenant, 'doctor', { userId: `dr-${tenant}` }),
  };
  const [admin, doctor] = [await as.admin(), await as.doctor()];
  const poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
  dataOf(await r.mutate('poli.assign', { poliId, userId: `dr-${tenant}` }, admin));
  dataOf(await r.mutate('pengaturan.update', { organizationId }, admin));
  dataOf(await r.mutate('satusehat.connect', { environment: 'staging', clientId, clientSecret }, admin));
  const doctorNik = makeNik({
    province: '31',
    regency: 71,
    district: 1,
    tanggalLahir: '1980-02-03',
    jenisKelamin: 'L',
    serial: ++serial % 9999,
  });
  await peer.addPractitioner(doctorNik, 'dr. Test');
  dataOf(await r.mutate('satusehat.practitioner', { userId: `dr-${tenant}`, nik: doctorNik }, admin));
  await r.owner.query(
    "insert into records.kode (system, code, display_en, display_id) values ('icd-10', 'J06.9', 'Acute upper respiratory infection', 'Infeksi saluran napas atas akut') on conflict do nothing",
  );
  return {
    tenant,
    organizationId,
    clientId,
    clientSecret,
    admin,
    doctor,
    doctorUserId: `dr-${tenant}`,
    doctorNik,
    poliId,
    async finishedVisit({ knownToPlatform = true } = {}) {
      const pasien = newPasien(++serial);
      if (knownToPlatform) await peer.addPatient(String(pasien.nik), String(pasien.nama));
      const pasienId = dataOf<{ id: string }>(await r.mutate('pasien.create', pasien, await as.admin())).id;
      const v = dataOf<{ id: string; noKunjungan: string }>(await r.mutate('kunjungan.register', { pasienId, poliId }, await as.clerk()));
      dataOf(await r.mutate('kunjungan.arrive', { id: v.id }, await as.clerk()));
      dataOf(await r.mutate('kunjungan.start', { id: v.id }, await as.doctor()));
      dataOf(await r.mutate('vital.record', { kunjunganId: v.id, measurements: BP(120, 80) }, await as.doctor()));
      dataOf(await r.mutate('diagnosis.record', { kunjunganId: v.id, code: 'J06.9', rank: 'primary' }, await as.doctor()));
      dataOf(await r.mutate('kunjungan.finish', { id: v.id }, await as.doctor()));
      return { pasienId, visit: v.id, noKunjungan: v.noKunjungan };
    },
  };
}

/** The visit's latest outbox row as the owner sees it. */
export async function outboxOf(
  r: Pick<RecordsUnderTest, 'owner'>,
  visit: string,
): Promise<{ state: string; attempts: number; last_error: string | null } | undefined> {
  const { rows } = await r.owner.query(
    'select state, attempts, last_error from records.satusehat_outbox where kunjungan_id = $1 order by id desc limit 1',
    [visit],
  );
  return rows[0];
}
