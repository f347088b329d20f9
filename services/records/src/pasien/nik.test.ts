import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeNik, nikMismatch, parseNik } from './nik.ts';

describe('NIK', () => {
  test('a man born 17 August 1985 in Kota Bandung', () => {
    const nik = makeNik({ province: '32', regency: 73, district: 5, tanggalLahir: '1985-08-17', jenisKelamin: 'L', serial: 12 });
    assert.equal(nik, '3273051708850012');
    assert.deepEqual(parseNik(nik), {
      province: '32',
      regency: '73',
      district: '05',
      day: 17,
      month: 8,
      yy: 85,
      female: false,
      serial: '0012',
    });
    assert.equal(nikMismatch(nik, '1985-08-17', 'L'), undefined);
  });

  test('women have 40 added to the day', () => {
    const nik = makeNik({ province: '35', regency: 78, district: 1, tanggalLahir: '2001-03-09', jenisKelamin: 'P', serial: 1 });
    assert.equal(nik.slice(6, 12), '490301');
    assert.equal(nikMismatch(nik, '2001-03-09', 'P'), undefined);
    assert.match(nikMismatch(nik, '2001-03-09', 'L') ?? '', /woman/);
    assert.match(nikMismatch('3273051708850012', '1985-08-17', 'P') ?? '', /man/);
  });

  test('birth date digits must agree', () => {
    assert.match(nikMismatch('3273051708850012', '1985-08-18', 'L') ?? '', /birth date/);
    assert.match(nikMismatch('3273051708850012', '1995-08-17', 'L') ?? '', /birth date/);
  });

  for (const [nik, why] of [
    ['327305170885001', /16 digits/],
    ['32730517088500123', /16 digits/],
    ['3273O51708850012', /16 digits/],
    ['9973051708850012', /province/],
    ['0073051708850012', /province/],
    ['3200051708850012', /regency or district/],
    ['3273003208850012', /regency or district/],
    ['3273053208850012', /date of birth/],
    ['3273051713850012', /date of birth/],
    ['3273053002850012', /date of birth/],
    ['3273057102850012', /date of birth/],
    ['3273051708850000', /serial/],
  ] as const) {
    test(`rejects ${nik}`, () => {
      const parsed = parseNik(nik);
      assert.ok('error' in parsed, `${nik} should be refused`);
      assert.match(parsed.error, why);
    });
  }

  test('29 February only in leap years', () => {
    assert.ok(!('error' in parseNik('3273052902000001')));
    assert.ok('error' in parseNik('3273052902010001'));
  });
});
