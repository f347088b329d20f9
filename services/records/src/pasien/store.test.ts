// pasien.list keeps one statement text per shape of listing (store.ts listText): that is only right
// while the text depends on nothing but the shape. Two copies of the store module (each with its own
// kept texts) build every shape from different values, actors and orders; their texts must agree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TenantDb } from '../db/index.ts';
import type { TenantScope } from '../server/index.ts';
import type { ListPasienInput } from './schema.ts';
import * as store from './store.ts';

type StoreModule = typeof store;

// Cursors as plain JSON: only what a cursor opens to shapes the statement, not how it is sealed.
const cursors: TenantScope['cursors'] = {
  seal: (_kind, _tenantId, key) => JSON.stringify(key),
  open: (token) => JSON.parse(token) as (string | number)[],
};
const FILTERS = ['nik', 'noRm', 'tanggalLahir', 'q', 'cursor'] as const;

function inputs(variant: 0 | 1): Array<[string, ListPasienInput]> {
  const out: Array<[string, ListPasienInput]> = [];
  for (const status of ['active', 'archived', 'all'] as const) {
    for (let mask = 0; mask < 1 << FILTERS.length; mask++) {
      const has = (f: (typeof FILTERS)[number]) => (mask & (1 << FILTERS.indexOf(f))) !== 0;
      const byName = has('q') && !has('nik') && !has('noRm');
      const input: ListPasienInput = { status, limit: variant ? 50 : 20 };
      if (has('nik')) input.nik = variant ? '3273010101900001' : '3171014509850002';
      if (has('noRm')) input.noRm = variant ? '42' : '00001234';
      if (has('tanggalLahir')) input.tanggalLahir = variant ? '1990-01-01' : '1985-09-05';
      if (has('q')) input.q = variant ? 'siti am' : 'budi';
      if (has('cursor'))
        input.cursor = byName
          ? cursors.seal('pasien.nama', 'rs-demo', [variant ? 'siti' : 'budi', '6f1c2f6e-8a43-4d8f-9b7e-0c2a3f4b5c6d'])
          : cursors.seal('pasien.rm', 'rs-demo', [variant ? '00000042' : '00009999']);
      out.push([`${status} ${mask}`, input]);
    }
  }
  return variant ? out.reverse() : out;
}

async function texts(mod: StoreModule, variant: 0 | 1): Promise<Map<string, string>> {
  let captured = '';
  const db: TenantDb = {
    tenantId: 'rs-demo',
    one: async (text) => ((captured = text), []),
    tx: () => Promise.reject(new Error('pasien.list sends one statement')),
  };
  const actor = variant
    ? { userId: 'u-2', role: 'nurse', clientId: 'dashboard', requestId: 'r-2', traceId: 'a'.repeat(32) }
    : { userId: 'u-1', role: 'doctor', requestId: 'r-1' };
  const pasien = mod.pasienStore({ db, actor, cursors });
  const out = new Map<string, string>();
  for (const [shape, input] of inputs(variant)) {
    await pasien.listPasien(input);
    out.set(shape, captured);
    await pasien.listPasien(input); // the kept text the second time
    assert.equal(captured, out.get(shape), shape);
  }
  return out;
}

test('a listing statement text depends on its shape only', async () => {
  const first = await texts(store, 0);
  const second = await texts((await import(`./store.ts?copy=${Date.now()}`)) as StoreModule, 1);
  assert.equal(first.size, 3 * 2 ** FILTERS.length);
  for (const [shape, text] of first) assert.equal(second.get(shape), text, shape);
  // Different shapes are different statements.
  assert.equal(new Set(first.values()).size, first.size);
});
