// Sending one visit as it now stands, in SATUSEHAT's order: who is who first (the patient and the
// practitioner looked up by NIK, the clinic registered as a Location), then the Encounter, its
// Conditions, the Encounter again as finished with its diagnoses, and the vital-sign Observations.
// Every step is safe to repeat: a resource the platform already holds (by our identifier) is never
// created twice (conditional create, If-None-Exist), and one whose id we kept is updated in place;
// every id the platform gives is kept at once, so a send cut short resumes where it stopped.
import { klinisReads } from '../klinis/index.ts';
import type { Entry } from '../klinis/index.ts';
import { kunjunganStore } from '../kunjungan/index.ts';
import type { Kunjungan } from '../kunjungan/index.ts';
import { pasienStore } from '../pasien/index.ts';
import type { TenantScope } from '../server/index.ts';
import type { Connection, PlatformClient } from './platform.ts';
import { conditionFor, encounterFor, locationFor, NIK_SYSTEM, observationFor } from './resources.ts';
import type { Refs } from './resources.ts';
import type { RemoteKind, SatusehatStore } from './store.ts';

/** Someone the visit names cannot be found at the platform: the visit waits for a fix, with this reason. */
export class Incomplete extends Error {}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface SendContext {
  scope: TenantScope;
  store: SatusehatStore;
  platform: PlatformClient;
  connection: Connection;
}

const AUDIT = { purpose: 'satusehat' };

/** The one who attended: whoever started the visit (else whoever finished it). */
function attendingUser(k: Kunjungan): string {
  const by = (status: string) => k.statusHistory.find((h) => h.status === status)?.actorUserId;
  return by('in-progress') ?? by('finished') ?? k.statusHistory[0]!.actorUserId;
}

export async function sendVisit(ctx: SendContext, kunjunganId: string): Promise<void> {
  const { scope, store, platform, connection: c } = ctx;
  const visit = await kunjunganStore(scope).get(kunjunganId, AUDIT);
  const reads = klinisReads(scope);
  const entries = async (kind: 'diagnosis' | 'vital') => reads.list(kind, { kunjunganId, includeEnteredInError: true, limit: 200 }, AUDIT);
  const [diagnoses, vitals] = [await entries('diagnosis'), await entries('vital')];
  const practitionerUser = attendingUser(visit);
  const practitionerNik = await store.practitionerNik(practitionerUser);
  if (!practitionerNik) throw new Incomplete(`practitioner ${practitionerUser} has no NIK: fill it in under SATUSEHAT's practitioners`);
  const practitionerKey = `${practitionerUser}:${practitionerNik}`;
  const known = await store.remoteIds([
    visit.pasienId,
    practitionerKey,
    visit.poliId,
    visit.id,
    ...diagnoses.map((d) => d.id),
    ...vitals.map((v) => v.id),
  ]);
  const idOf = (kind: RemoteKind, local: string) => known.get(`${kind}:${local}`);
  const keep = async (kind: RemoteKind, local: string, remote: string) => {
    if (idOf(kind, local) !== remote) await store.keepRemote(kind, local, remote);
    known.set(`${kind}:${local}`, remote);
    return remote;
  };

  const byNik = async (type: 'Patient' | 'Practitioner', nik: string): Promise<string | undefined> => {
    const bundle = await platform.call(c, 'GET', `/${type}?identifier=${encodeURIComponent(`${NIK_SYSTEM}|${nik}`)}`);
    return (bundle.entry as Json[] | undefined)?.[0]?.resource?.id as string | undefined;
  };

  let patient = idOf('patient', visit.pasienId);
  if (!patient) {
    const nik = (await pasienStore(scope).getPasien(visit.pasienId, AUDIT)).nik;
    const found = await byNik('Patient', nik);
    if (!found) throw new Incomplete(`patient ${visit.noRm} is not known to SATUSEHAT by their NIK: check the NIK on the patient's record`);
    patient = await keep('patient', visit.pasienId, found);
  }
  let practitioner = idOf('practitioner', practitionerKey);
  if (!practitioner) {
    const found = await byNik('Practitioner', practitionerNik);
    if (!found) throw new Incomplete(`practitioner ${practitionerUser} is not known to SATUSEHAT by the NIK given: check it`);
    practitioner = await keep('practitioner', practitionerKey, found);
  }

  /** Our resource at the platform: updated when we hold its id, else created unless it exists by our identifier. */
  const put = async (kind: RemoteKind, local: string, body: Json): Promise<string> => {
    const remote = idOf(kind, local);
    const type = body.resourceType as string;
    if (remote) return keep(kind, local, (await platform.call(c, 'PUT', `/${type}/${remote}`, { ...body, id: remote })).id as string);
    const identifier = (body.identifier as Json[])[0]!;
    const ifNoneExist = `identifier=${identifier.system}|${identifier.value}`;
    return keep(kind, local, (await platform.call(c, 'POST', `/${type}`, body, { 'if-none-exist': ifNoneExist })).id as string);
  };

  const location =
    idOf('location', visit.poliId) ?? (await put('location', visit.poliId, locationFor(visit.poliId, visit.poliNama, c.organizationId)));
  const refs: Refs = { organizationId: c.organizationId, patient, practitioner, location };
  const encounter = idOf('encounter', visit.id) ?? (await put('encounter', visit.id, encounterFor(visit, refs)));
  await sendEntries(diagnoses, 'condition', (e) => conditionFor(e, refs, encounter));
  const inForce = diagnoses
    .filter((d) => !d.enteredInError && idOf('condition', d.id))
    .sort((a, b) => (a.peran === 'primary' ? -1 : b.peran === 'primary' ? 1 : 0))
    .map((d) => ({ id: idOf('condition', d.id)!, display: String((d.isi as { display?: string }).display ?? d.kode) }));
  await put('encounter', visit.id, encounterFor(visit, refs, inForce));
  await sendEntries(vitals, 'observation', (e) => observationFor(e, refs, encounter));

  /** Entries in force are sent; one entered in error is sent only to correct what the platform already holds. */
  async function sendEntries(list: Entry[], kind: 'condition' | 'observation', build: (e: Entry) => Json): Promise<void> {
    for (const e of list) {
      if (e.enteredInError && !idOf(kind, e.id)) continue;
      await put(kind, e.id, build(e));
    }
  }
}
