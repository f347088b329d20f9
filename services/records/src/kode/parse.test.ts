import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ownerUrl } from './cli.ts';
import { CODE_PATTERN, parseCodeList, searchTerms } from './index.ts';

const devList = readFileSync(fileURLToPath(new URL('../../codes/icd10-dev.csv', import.meta.url)), 'utf8');

test('the development list is a clean list of about a hundred dotted ICD-10 codes with both names', () => {
  const { rows, problems } = parseCodeList(devList);
  assert.deepEqual(problems, []);
  assert.ok(rows.length >= 90 && rows.length <= 150, `${rows.length} codes`);
  for (const r of rows) assert.match(r.code, CODE_PATTERN['icd-10']);
  const byCode = new Map(rows.map((r) => [r.code, r]));
  assert.equal(byCode.get('I10')?.displayId, 'Hipertensi esensial (primer)');
  for (const code of ['J06.9', 'E11.9', 'K29.7', 'A09.9', 'K02.9']) assert.ok(byCode.has(code), code);
  assert.ok(
    rows.some((r) => r.displayEn.includes(',')),
    'names with commas are quoted',
  );
});

test('quoting as RFC 4180 has it, a byte order mark, CRLF line ends and blank lines are all read', () => {
  const text =
    '\uFEFFcode,display_en,display_id\r\nA09.9,"Diarrhoea, cause unspecified","Diare, ""tidak"" spesifik"\r\n\r\nI10, Hypertension ,Hipertensi\r\n';
  assert.deepEqual(parseCodeList(text), {
    rows: [
      { code: 'A09.9', displayEn: 'Diarrhoea, cause unspecified', displayId: 'Diare, "tidak" spesifik' },
      { code: 'I10', displayEn: 'Hypertension', displayId: 'Hipertensi' },
    ],
    problems: [],
  });
});

test('every bad line is reported with its number and what to change, and only good lines are kept', () => {
  const text = [
    'code,display_en,display_id', // 1
    'j06.9,Cold,Selesma', // 2
    'J069,Cold,Selesma', // 3
    'XX1,Thing,Barang', // 4
    'I10,,Hipertensi', // 5
    'I11.9,Heart, ', // 6
    'E11.9,Diabetes,Diabetes', // 7
    'E11.9,Diabetes again,Diabetes lagi', // 8
    'K29.7,Gastritis, unspecified,Gastritis', // 9
    ',Nothing,Tidak ada', // 10
    'K30,"Dys\npepsia",Dispepsia', // 11-12
  ].join('\n');
  const { rows, problems } = parseCodeList(text);
  assert.deepEqual(
    rows.map((r) => r.code),
    ['E11.9'],
  );
  assert.deepEqual(problems, [
    { line: 2, message: 'write the code in capitals: J06.9' },
    { line: 3, message: 'write the code with its dot: J06.9' },
    {
      line: 4,
      message:
        '"XX1" is not an ICD-10 code: a capital letter, two digits, then optionally a dot and 1 to 4 digits or capitals (A09, J06.9)',
    },
    { line: 5, message: 'display_en (the English name) is empty' },
    { line: 6, message: 'display_id (the Indonesian name) is empty' },
    { line: 8, message: 'code E11.9 is already on line 7: keep one of them' },
    {
      line: 9,
      message: '4 fields, expected 3 (code,display_en,display_id): put a name that contains a comma in double quotes',
    },
    { line: 10, message: 'the code is empty' },
    { line: 11, message: 'display_en (the English name) contains a line break or another control character' },
  ]);
});

test('a wrong header, an empty list, a broken quote and text that is not UTF-8 are refused', () => {
  assert.deepEqual(parseCodeList('kode,nama\nI10,Hipertensi\n').problems, [
    { line: 1, message: 'the first line must be the header code,display_en,display_id (found kode,nama)' },
  ]);
  assert.deepEqual(parseCodeList('').problems, [
    { line: 1, message: 'the first line must be the header code,display_en,display_id (found nothing)' },
  ]);
  assert.deepEqual(parseCodeList('code,display_en,display_id\n').problems, [{ line: 2, message: 'the file lists no codes' }]);
  assert.deepEqual(parseCodeList('code,display_en,display_id\nI10,"Hyper"tension,Hipertensi\n').problems[0], {
    line: 2,
    message: 'text after a closing quote: a quoted name ends at its quote, and a quote inside it is written twice ("")',
  });
  assert.deepEqual(parseCodeList('code,display_en,display_id\nI10,Hypertension,Hipertensi\nI11.9,"Heart,Jantung\n').problems, [
    { line: 3, message: 'a quote opened on or before this line is never closed' },
  ]);
  const latin1 = new TextDecoder('utf-8').decode(Buffer.from('code,display_en,display_id\nI10,Hypertension,Hipertensi \xe9\n', 'latin1'));
  assert.deepEqual(parseCodeList(latin1).problems, [
    { line: 2, message: 'display_id (the Indonesian name) is not UTF-8 text: save the file as UTF-8' },
  ]);
});

test('a search text is a code prefix in capitals (dotted when typed without) and lower-case words', () => {
  assert.deepEqual(searchTerms(' j06 '), { prefix: 'J06', words: ['j06'] });
  assert.deepEqual(searchTerms('j069'), { prefix: 'J06.9', words: ['j069'] });
  assert.deepEqual(searchTerms('E11.9'), { prefix: 'E11.9', words: ['e11', '9'] });
  assert.deepEqual(searchTerms('Diabetes tipe-2'), { prefix: '', words: ['diabetes', 'tipe', '2'] });
  assert.deepEqual(searchTerms("%_'\\ (radang)"), { prefix: '', words: ['radang'] });
  assert.deepEqual(searchTerms('   '), { prefix: '', words: [] });
});

test('the loader connects as the owner: the records database itself, or the server whose records database it is', () => {
  assert.equal(
    ownerUrl({ MIGRATION_DATABASE_URL: 'postgres://o@db:5432/records', DATABASE_URL: 'postgres://a@db/x' }),
    'postgres://o@db:5432/records',
  );
  assert.equal(ownerUrl({ DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' }), 'postgres://postgres@127.0.0.1:5432/records');
  assert.throws(() => ownerUrl({}), /MIGRATION_DATABASE_URL/);
});
