// The code system against a real Postgres: loading, reloading (a code left out becomes inactive, never
// deleted), refusing a bad file with nothing changed (the CLI included), a full-size list, and the
// lookups as the application role reads them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Pool } from '@simrs/platform/db';
import { createAppPool, tenantDb } from '../db/index.ts';
import { migratedDatabase } from '../testing/index.ts';
import type { MigratedDatabase } from '../testing/index.ts';
import { loadCodes, lookupCodes, parseCodeList, readCodeFile, searchCodes } from './index.ts';
import type { CodeRow } from './index.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const DEV_LIST = fileURLToPath(new URL('../../codes/icd10-dev.csv', import.meta.url));
const HEADER = 'code,display_en,display_id';

function cli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', fail);
    child.once('close', (code) => ok({ code, stdout, stderr }));
  });
}

describe('records.kode', () => {
  let db: MigratedDatabase;
  let owner: pg.Client;
  let pool: Pool;
  let dir: string;

  const state = async () =>
    (
      await owner.query<{ code: string; display_en: string; active: boolean }>(
        'select code, display_en, active from records.kode where system = \'icd-10\' order by code collate "C"',
      )
    ).rows.map((r) => `${r.code} ${r.active ? 'active' : 'inactive'} ${r.display_en}`);

  before(async () => {
    db = await migratedDatabase('kode');
    owner = db.owner;
    pool = createAppPool(db.appUrl, { max: 2, statementTimeoutMs: 5_000 });
    dir = await mkdtemp(join(tmpdir(), 'simrs-kode-'));
  });
  after(async () => {
    await pool?.end();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('a load adds, a reload updates names, leaves the rest, and makes a code left out inactive', async () => {
    const list: CodeRow[] = [
      { code: 'I10', displayEn: 'Hypertension', displayId: 'Hipertensi' },
      { code: 'J06.9', displayEn: 'Upper respiratory infection', displayId: 'ISPA' },
      { code: 'K29.7', displayEn: 'Gastritis', displayId: 'Gastritis' },
    ];
    assert.deepEqual(await loadCodes(owner, 'icd-10', list), { added: 3, updated: 0, unchanged: 0, deactivated: 0 });
    const renamed = [{ ...list[0]!, displayEn: 'Essential (primary) hypertension' }, list[1]!];
    assert.deepEqual(await loadCodes(owner, 'icd-10', renamed), { added: 0, updated: 1, unchanged: 1, deactivated: 1 });
    assert.deepEqual(await state(), [
      'I10 active Essential (primary) hypertension',
      'J06.9 active Upper respiratory infection',
      'K29.7 inactive Gastritis',
    ]);
    // Back in the list: active again, which counts as an update.
    assert.deepEqual(await loadCodes(owner, 'icd-10', list), { added: 0, updated: 2, unchanged: 1, deactivated: 0 });
    assert.deepEqual((await state()).at(-1), 'K29.7 active Gastritis');
  });

  test('a list the table refuses changes nothing', async () => {
    const before = await state();
    const bad = [
      { code: 'E11.9', displayEn: 'Type 2 diabetes', displayId: 'Diabetes tipe 2' },
      { code: 'e11', displayEn: 'Lower case', displayId: 'Huruf kecil' },
    ];
    await assert.rejects(loadCodes(owner, 'icd-10', bad), /kode_code_check/);
    await assert.rejects(loadCodes(owner, 'icd-10', []), /no codes to load/);
    assert.deepEqual(await state(), before);
  });

  test('the CLI loads a file and prints its counts, and refuses a bad file naming every bad line, loading nothing', async () => {
    const env = { MIGRATION_DATABASE_URL: db.url };
    const good = join(dir, 'good.csv');
    await writeFile(
      good,
      `${HEADER}\nI10,Hypertension,Hipertensi\n"J06.9","Upper respiratory infection, acute",ISPA\nA09.9,Diarrhoea,Diare\n`,
    );
    const loaded = await cli(['load', '--system', 'icd-10', '--file', good], env);
    assert.equal(loaded.code, 0, loaded.stderr);
    assert.match(loaded.stdout, /icd-10: 3 codes from .*good\.csv: added 1, updated 1, unchanged 1, deactivated 1 \(/);
    const before = await state();
    const bad = join(dir, 'bad.csv');
    await writeFile(bad, `${HEADER}\nI10,Hypertension,Hipertensi\nJ069,Cold,Selesma\nB86,Scabies,\n`);
    const refused = await cli(['load', '--system', 'icd-10', '--file', bad], env);
    assert.equal(refused.code, 1);
    assert.deepEqual(refused.stderr.trim().split('\n'), [
      'line 3: write the code with its dot: J06.9',
      'line 4: display_id (the Indonesian name) is empty',
      'error: 2 problems in the file; nothing was loaded',
    ]);
    assert.deepEqual(await state(), before);
    const usage = await cli(['load', '--system', 'icd-9', '--file', good], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown system "icd-9"/);
    const asApp = await cli(['load', '--system', 'icd-10', '--file', good], { MIGRATION_DATABASE_URL: db.appUrl });
    assert.equal(asApp.code, 1);
    assert.match(asApp.stderr, /permission denied .*connect as the owner/);
  });

  test('some 14,000 codes load in a few seconds, and reload with a change in as many', async () => {
    const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const lines = [HEADER];
    for (let i = 0; lines.length <= 14_000; i++) {
      const code = `${letters[Math.floor(i / 1000)]}${String(Math.floor(i / 10) % 100).padStart(2, '0')}.${i % 10}`;
      lines.push(`${code},"Condition ${i}, English",Kondisi ${i}`);
    }
    const { rows, problems } = parseCodeList(lines.join('\n'));
    assert.deepEqual(problems, []);
    let started = performance.now();
    const first = await loadCodes(owner, 'icd-10', rows);
    const firstMs = performance.now() - started;
    // J06.9, A09.9 and K29.7 were there (K29.7 inactive) and get new names; I10 is not in the list.
    assert.deepEqual(first, { added: 13_997, updated: 3, unchanged: 0, deactivated: 1 });
    started = performance.now();
    const again = await loadCodes(owner, 'icd-10', rows.slice(1));
    const againMs = performance.now() - started;
    assert.deepEqual(again, { added: 0, updated: 0, unchanged: 13_999, deactivated: 1 });
    assert.ok(firstMs < 5_000 && againMs < 5_000, `loads took ${Math.round(firstMs)} and ${Math.round(againMs)} ms`);
  });
});

describe('searching and looking up codes as the application role', () => {
  let db: MigratedDatabase;
  let owner: pg.Client;
  let pool: Pool;

  before(async () => {
    db = await migratedDatabase('kode_search');
    owner = db.owner;
    await loadCodes(owner, 'icd-10', await readCodeFile(DEV_LIST));
    await owner.query("update records.kode set active = false where code = 'I11.9'");
    pool = createAppPool(db.appUrl, { max: 2, statementTimeoutMs: 5_000 });
  });
  after(async () => {
    await pool?.end();
    await db?.drop();
  });

  test('by code prefix, case-insensitive, and by the words of either name; inactive codes never', async () => {
    const t = tenantDb(pool, 'rs-demo');
    const codes = async (text: string, limit?: number) => (await searchCodes(t, text, { limit })).map((m) => m.code);
    assert.deepEqual(await codes('j06'), ['J06.9']);
    assert.deepEqual(await codes('J069'), ['J06.9']);
    assert.deepEqual((await searchCodes(t, 'j06'))[0], {
      code: 'J06.9',
      displayEn: 'Acute upper respiratory infection, unspecified',
      displayId: 'Infeksi saluran pernapasan atas akut (ISPA), tidak spesifik',
    });
    assert.deepEqual(await codes('hipertensi'), ['I10']); // I11.9 (Penyakit jantung hipertensi) is inactive
    assert.deepEqual(await codes('hypertension'), ['I10']);
    assert.deepEqual(await codes('radang amandel'), ['J03.9', 'J35.0']);
    assert.deepEqual(await codes('DIABETES tipe 2'), ['E11.9']);
    assert.deepEqual(await codes('ertensi'), [], 'words match from their start');
    assert.deepEqual(await codes('  '), []);
    assert.deepEqual(await codes("'; drop table records.kode; --"), []);
    // Code prefix matches first (by code), then the name matches (by code).
    const k = await codes('k', 100);
    const prefixed = k.filter((c) => c.startsWith('K'));
    assert.deepEqual(k.slice(0, prefixed.length), prefixed);
    assert.deepEqual(prefixed, [...prefixed].sort());
    const named = k.slice(prefixed.length);
    assert.ok(named.length > 0 && named.every((c) => !c.startsWith('K')), 'names with a word starting with k follow');
    assert.deepEqual(named, [...named].sort());
    assert.equal((await codes('a', 5)).length, 5);
    assert.equal((await codes('a')).length, 20);
  });

  test('lookupCodes says which of the given codes exist and are active, in a transaction too', async () => {
    const t = tenantDb(pool, 'rs-demo');
    assert.deepEqual([...(await lookupCodes(t, ['I10', 'I11.9', 'X99.9', 'j06.9', 'I10']))], ['I10']);
    assert.deepEqual([...(await lookupCodes(t, []))], []);
    const inTx = await t.tx((q) => lookupCodes(q, ['J06.9', 'K29.7', 'K29']));
    assert.deepEqual([...inTx].sort(), ['J06.9', 'K29.7']);
    const found = await t.tx((q) => searchCodes(q, 'gastritis'));
    assert.deepEqual(
      found.map((m) => m.code),
      ['K29.7'],
    );
  });

  test('the application role reads the codes and cannot change them', async () => {
    const app = new pg.Client({ connectionString: db.appUrl });
    await app.connect();
    try {
      await assert.rejects(app.query("update records.kode set active = false where code = 'I10'"), /permission denied/);
      await assert.rejects(app.query("insert into records.kode values ('icd-10', 'X00', 'x', 'x')"), /permission denied/);
    } finally {
      await app.end();
    }
  });
});
