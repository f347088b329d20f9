// Every FHIR interaction against the permission matrix, generated as rbac.int.test.ts is for the
// procedures: each role, and a read-only and a write-only credential, get exactly what
// access/permissions.ts grants for the permission the interaction needs, and a 403 `forbidden`
// OperationOutcome otherwise. The clinicians act with a treatment relationship, so need-to-know (its
// own tests) does not decide here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROLES, SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import { ACTION_FOR, roleMay } from '../access/index.ts';
import type { Permission } from '../access/index.ts';
import {
  allergy,
  AMENDMENT_REASON,
  assertOutcome,
  clinicalEntry,
  bpObservation,
  clinicalWorld,
  dataOf,
  diagnosisCondition,
  fhirCall,
  newPasien,
  patientFor,
  startRecords,
} from '../testing/index.ts';
import type { ClinicalWorld, Json } from '../testing/index.ts';

interface Row {
  name: string;
  permission: Permission;
  /** The request, made afresh for each caller (a new patient to archive, the current version to amend). */
  request: () => Promise<{ method: string; path: string; body?: Json; headers?: Record<string, string> }>;
}

const CLINICAL = [
  { type: 'Observation', kind: 'vital' },
  { type: 'Condition', kind: 'diagnosis' },
  { type: 'AllergyIntolerance', kind: 'alergi' },
] as const;
/** Who acts for each role: the clinicians are the ones with a treatment relationship to the patient. */
const USER_FOR: Partial<Record<string, string>> = { doctor: 'dr-ani', nurse: 'ns-sri' };
const READS = new Set(['read', 'search']);

describe('FHIR interactions against the permission matrix', () => {
  let w: ClinicalWorld;
  let pasienId: string;
  let visit: string;
  let admin: string;
  let n = 7000;
  const made: Record<string, string> = {};

  before(async () => {
    w = await clinicalWorld(await startRecords('fhirmatrix'));
    ({ pasienId, visit } = await w.startedVisit());
    admin = await w.r.principal('rs-demo', 'tenant_admin');
    const post = async (type: string, body: Json, principal: string) =>
      String((await fhirCall(w.r, 'POST', `/${type}`, { principal, body })).body.id);
    made.Observation = await post('Observation', bpObservation(pasienId, visit, 120, 80), w.nurse);
    made.Condition = await post('Condition', diagnosisCondition(pasienId, visit, 'J06.9'), w.doctor);
    made.AllergyIntolerance = await post('AllergyIntolerance', allergy(pasienId, 'Amoksisilin'), w.nurse);
  });
  after(async () => {
    await w?.r.stop();
  });

  const freshPatient = async () => dataOf<{ id: string }>(await w.r.mutate('pasien.create', newPasien(n++), admin)).id;
  const current = async (path: string) => {
    const read = await fhirCall(w.r, 'GET', path, { principal: w.doctor });
    return { body: read.body, etag: read.headers.get('etag') ?? '' };
  };
  const rows: Row[] = [
    { name: 'Patient read', permission: 'pasien.read', request: async () => ({ method: 'GET', path: `/Patient/${pasienId}` }) },
    { name: 'Patient search', permission: 'pasien.list', request: async () => ({ method: 'GET', path: '/Patient?name=a' }) },
    {
      name: 'Patient create',
      permission: 'pasien.create',
      request: async () => ({ method: 'POST', path: '/Patient', body: patientFor(n++) }),
    },
    {
      name: 'Patient update',
      permission: 'pasien.update',
      request: async () => {
        const { body, etag } = await current(`/Patient/${await freshPatient()}`);
        return {
          method: 'PUT',
          path: `/Patient/${body.id}`,
          body: { ...body, telecom: [{ system: 'phone', value: `+62811000${n++}`, use: 'mobile' }] },
          headers: { 'if-match': etag },
        };
      },
    },
    {
      name: 'Patient delete (archive)',
      permission: 'pasien.archive',
      request: async () => ({ method: 'DELETE', path: `/Patient/${await freshPatient()}` }),
    },
    { name: 'Encounter read', permission: 'kunjungan.list', request: async () => ({ method: 'GET', path: `/Encounter/${visit}` }) },
    {
      name: 'Encounter search',
      permission: 'kunjungan.list',
      request: async () => ({ method: 'GET', path: `/Encounter?patient=${pasienId}` }),
    },
    ...CLINICAL.flatMap(({ type, kind }): Row[] => [
      { name: `${type} read`, permission: `${kind}.read`, request: async () => ({ method: 'GET', path: `/${type}/${made[type]}` }) },
      {
        name: `${type} search`,
        permission: `${kind}.read`,
        request: async () => ({ method: 'GET', path: `/${type}?patient=${pasienId}` }),
      },
      {
        name: `${type} create`,
        permission: `${kind}.record`,
        request: async () => ({ method: 'POST', path: `/${type}`, body: clinicalEntry(type, pasienId, visit, `Debu ${n++}`) }),
      },
      {
        name: `${type} update (amendment)`,
        permission: `${kind}.amend`,
        request: async () => {
          const { body, etag } = await current(`/${type}/${made[type]}`);
          const amended = { ...body, extension: [{ url: AMENDMENT_REASON, valueString: `koreksi ${n++}` }] };
          return { method: 'PUT', path: `/${type}/${made[type]}`, body: amended, headers: { 'if-match': etag } };
        },
      },
    ]),
  ];

  async function expectVerdict(row: Row, principal: string, allowed: boolean, who: string): Promise<void> {
    const { method, path, body, headers } = await row.request();
    const res = await fhirCall(w.r, method, path, { principal, body, headers });
    const what = `${who}: ${row.name} (${row.permission})`;
    if (allowed) assert.ok(res.status >= 200 && res.status < 300, `${what} should be allowed: ${res.status} ${JSON.stringify(res.body)}`);
    else assert.match(assertOutcome(res, 403, 'forbidden'), /.+/, `${what} should be refused`);
  }

  for (const role of ROLES)
    test(`${role}: every FHIR interaction as the matrix says`, async () => {
      const principal = await w.r.principal('rs-demo', role, USER_FOR[role] ? { userId: USER_FOR[role] } : {});
      for (const row of rows) await expectVerdict(row, principal, roleMay(role, row.permission), role);
    });

  for (const scope of [SCOPE_READ, SCOPE_WRITE])
    test(`a credential with ${scope} alone: reads need ${SCOPE_READ}, writes ${SCOPE_WRITE}`, async () => {
      for (const row of rows) {
        const role = ROLES.find((r) => roleMay(r, row.permission));
        assert.ok(role, `${row.permission}: some role may`);
        const principal = await w.r.principal('rs-demo', role, { scopes: [scope], ...(USER_FOR[role] ? { userId: USER_FOR[role] } : {}) });
        const needs = READS.has(ACTION_FOR[row.permission]) ? SCOPE_READ : SCOPE_WRITE;
        await expectVerdict(row, principal, scope === needs, `${role} with ${scope}`);
      }
    });
});
