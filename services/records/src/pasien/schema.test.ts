import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { createPasienInput, listPasienInput, normalizePhone, updatePasienInput } from './schema.ts';

const valid = {
  nik: '3273055708850012',
  nama: 'Siti Aminah',
  tempatLahir: 'Bandung',
  tanggalLahir: '1985-08-17',
  jenisKelamin: 'P',
  alamat: 'Jl. Merdeka No. 10',
  kotaKabupaten: 'Kota Bandung',
  provinsi: 'Jawa Barat',
};

const fieldErrors = (input: unknown) => {
  const r = createPasienInput.safeParse(input);
  return r.success ? {} : (z.flattenError(r.error).fieldErrors as Record<string, string[]>);
};

describe('pasien input', () => {
  test('a minimal record is valid; optional fields may be null', () => {
    assert.ok(createPasienInput.safeParse(valid).success);
    assert.ok(
      createPasienInput.safeParse({ ...valid, golonganDarah: null, telepon: '+62 812-3456-7890', agama: 'Islam', noBpjs: '0001234567890' })
        .success,
    );
  });

  test('each bad field gets its own message', () => {
    const errors = fieldErrors({
      ...valid,
      nama: 'Robert"); DROP TABLE pasien;--',
      tanggalLahir: '1985-02-30',
      jenisKelamin: 'X',
      telepon: '12345',
      kodePos: '1234',
    });
    assert.deepEqual(Object.keys(errors).sort(), ['jenisKelamin', 'kodePos', 'nama', 'tanggalLahir', 'telepon']);
    assert.match(errors.nama![0]!, /nama/);
    assert.match(errors.tanggalLahir![0]!, /calendar date/);
  });

  test('unknown fields are refused', () => {
    const r = createPasienInput.safeParse({ ...valid, tenantId: 'rs-lain' });
    assert.equal(r.success, false);
    assert.match(JSON.stringify(r.error?.issues), /unknown field\(s\): tenantId/);
    assert.equal(updatePasienInput.safeParse({ id: '7cea7cb5-edcf-4f29-a5d2-e1b4bbe7a73b', noRm: '1' }).success, false);
    assert.equal(listPasienInput.safeParse({ tenant: 'x' }).success, false);
  });

  test('the NIK must agree with birth date and sex', () => {
    assert.match(fieldErrors({ ...valid, jenisKelamin: 'L' }).nik?.[0] ?? '', /woman/);
    assert.match(fieldErrors({ ...valid, tanggalLahir: '1985-08-18' }).nik?.[0] ?? '', /birth date/);
    assert.match(fieldErrors({ ...valid, nik: '1234' }).nik?.[0] ?? '', /16 digits/);
  });

  test('odd unicode and control characters are refused', () => {
    for (const nama of ['Siti\u0000Aminah', 'Siti\u202eAminah', 'Siti\u200bAminah', '\ud800', '<script>', '   ', '12345']) {
      assert.ok(fieldErrors({ ...valid, nama }).nama, JSON.stringify(nama));
    }
    assert.ok(createPasienInput.safeParse({ ...valid, nama: 'Ni Luh Putu Ayu Dewi-Kartika, S.Ked.' }).success);
    assert.ok(createPasienInput.safeParse({ ...valid, nama: 'Nguyễn Thị Ánh' }).success);
  });

  test('phones are stored as +62', () => {
    assert.equal(normalizePhone('0812-3456-7890'), '+6281234567890');
    assert.equal(normalizePhone('+62 812 3456 7890'), '+6281234567890');
    assert.equal(normalizePhone('6221 5551234'), '+62215551234');
  });

  test('list input has defaults and bounds', () => {
    assert.deepEqual(listPasienInput.parse(undefined), { status: 'active', limit: 20 });
    assert.equal(listPasienInput.safeParse({ limit: 101 }).success, false);
    assert.equal(listPasienInput.safeParse({ q: "x' OR 1=1 --" }).success, false);
  });
});
