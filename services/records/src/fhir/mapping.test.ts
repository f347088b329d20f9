// The one mapping, both ways, without a database: a stored record renders as valid FHIR R4 and reads
// back as the same fields; a Patient as SATUSEHAT's examples write it is accepted; whatever the record
// cannot hold is refused with the element named.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizePhone, syntheticPasien, WRITABLE } from '../pasien/index.ts';
import type { Pasien } from '../pasien/index.ts';
import { EXT, fromPatient, NIK_SYSTEM, toPatient } from './mapping.ts';
import { FhirError } from './outcome.ts';
import { assertValidFhir } from '@simrs/platform/testing/fhir-validation';

const TENANT = 'rs-demo';

function stored(i: number, overrides: Partial<Pasien> = {}): Pasien {
  const input = syntheticPasien(1, i);
  const p: Record<string, unknown> = { id: `0b3c3d1e-0000-4000-8000-${String(i).padStart(12, '0')}`, noRm: String(i).padStart(8, '0') };
  for (const f of WRITABLE) p[f] = input[f] ?? null;
  p.telepon = input.telepon ? normalizePhone(input.telepon) : null;
  Object.assign(
    p,
    {
      status: 'active',
      archivedAt: null,
      archiveReason: null,
      version: 3,
      createdAt: '2025-01-02T03:04:05.678Z',
      updatedAt: '2025-02-03T04:05:06.789Z',
    },
    overrides,
  );
  return p as Pasien;
}

const fieldsOf = (p: Pasien) => Object.fromEntries(WRITABLE.map((f) => [f, p[f] ?? null]));

describe('Patient <-> record', () => {
  test('many synthetic records render as valid FHIR R4 and read back as the same fields', () => {
    for (let i = 1; i <= 200; i++) {
      const p = stored(i);
      const patient = assertValidFhir(toPatient(p, TENANT), `patient ${i}`);
      assert.deepEqual(fromPatient(patient, TENANT), fieldsOf(p), `record ${i}`);
    }
  });

  test('optional fields the record lacks are left out, not emptied; archived is active false', () => {
    const p = stored(7, {
      golonganDarah: null,
      rhesus: null,
      agama: null,
      statusPerkawinan: null,
      pekerjaan: null,
      namaIbu: null,
      rt: null,
      rw: null,
      kelurahan: null,
      kecamatan: null,
      kodePos: null,
      telepon: null,
      noBpjs: null,
      status: 'archived',
    });
    const patient = assertValidFhir(toPatient(p, TENANT)) as Record<string, unknown>;
    assert.equal(patient.active, false);
    assert.equal(patient.telecom, undefined);
    assert.equal(patient.maritalStatus, undefined);
    assert.deepEqual(patient.extension, [{ url: EXT.birthPlace, valueAddress: { city: p.tempatLahir } }]);
    assert.deepEqual((patient.address as unknown[])[0], {
      use: 'home',
      line: [p.alamat],
      city: p.kotaKabupaten,
      state: p.provinsi,
      country: 'ID',
    });
    assert.equal((patient.identifier as unknown[]).length, 2, 'NIK and medical record number');
    assert.deepEqual(fromPatient({ ...patient, active: true }, TENANT), fieldsOf(p));
  });

  test('a Patient as SATUSEHAT examples write it (given and family, mobile phone) is accepted', () => {
    const input = fromPatient(
      {
        resourceType: 'Patient',
        identifier: [{ use: 'official', system: NIK_SYSTEM, value: '3273011501900003' }],
        name: [{ use: 'official', given: ['Budi', 'Adi'], family: 'Santoso' }],
        gender: 'male',
        birthDate: '1990-01-15',
        telecom: [{ system: 'phone', value: '+62812345678', use: 'mobile' }],
        address: [
          { use: 'home', line: ['Jl. Braga No. 1'], city: 'Kota Bandung', state: 'Jawa Barat', postalCode: '40111', country: 'ID' },
        ],
        maritalStatus: {
          coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-MaritalStatus', code: 'M', display: 'Married' }],
          text: 'Married',
        },
        extension: [{ url: EXT.birthPlace, valueAddress: { city: 'Bandung', country: 'ID' } }],
      },
      TENANT,
    );
    assert.equal(input.nama, 'Budi Adi Santoso');
    assert.equal(input.statusPerkawinan, 'Kawin', 'the code decides when the text is not the record word');
    assert.equal(input.kodePos, '40111');
    assert.equal(input.rt, null);
  });

  test('what the record cannot hold is refused, each element named', () => {
    const base = toPatient(stored(3), TENANT);
    const refused = (patch: Record<string, unknown>): string[] => {
      try {
        fromPatient({ ...base, ...patch }, TENANT);
      } catch (err) {
        assert.ok(err instanceof FhirError);
        assert.equal(err.status, 400);
        return err.issues.flatMap((i) => i.expression ?? []);
      }
      throw new Error('accepted');
    };
    assert.deepEqual(refused({ contact: [{}], deceasedBoolean: false }), ['Patient.contact', 'Patient.deceasedBoolean']);
    assert.deepEqual(refused({ identifier: [{ system: 'https://fhir.kemkes.go.id/id/paspor', value: 'X1' }] }), [
      'Patient.identifier[0]',
      'Patient.identifier',
    ]);
    assert.deepEqual(refused({ gender: 'other' }), ['Patient.gender']);
    assert.deepEqual(refused({ telecom: [{ system: 'email', value: 'a@b.test' }] }), ['Patient.telecom[0]']);
    assert.deepEqual(refused({ name: [{ text: 'A' }, { text: 'B' }] }), ['Patient.name']);
    assert.deepEqual(
      refused({ extension: [{ url: 'https://fhir.kemkes.go.id/r4/StructureDefinition/citizenshipStatus', valueCode: 'WNI' }] }),
      ['Patient.extension[0]', 'Patient.extension'],
    );
    assert.ok(refused({ birthDate: '1990-02-30' }).includes('Patient.birthDate'));
    assert.deepEqual(refused({ active: false }), ['Patient.active']);
    assert.deepEqual(refused({ resourceType: 'Patient', modifierExtension: [{ url: 'x', valueString: 'y' }] }), [
      'Patient.modifierExtension',
    ]);
  });

  test('the NIK must agree with birth date and sex, as in tRPC and REST', () => {
    const base = toPatient(stored(4), TENANT) as Record<string, unknown>;
    assert.throws(
      () => fromPatient({ ...base, gender: base.gender === 'male' ? 'female' : 'male' }, TENANT),
      (err: unknown) => err instanceof FhirError && err.issues[0]!.expression![0] === 'Patient.identifier',
    );
  });
});
