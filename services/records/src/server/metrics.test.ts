import assert from 'node:assert/strict';
import { test } from 'node:test';
import { proceduresOf, restRouteOf } from './metrics.ts';

test('metric labels come from the router: unknown procedures and REST paths are {unknown}', () => {
  assert.deepEqual(proceduresOf('/trpc/pasien.list'), ['pasien.list']);
  assert.deepEqual(proceduresOf('/trpc/attacker123'), ['{unknown}']);
  assert.equal(restRouteOf('GET', '/api/v1/pasien/0b3c-anything', '/api/v1'), 'GET /api/v1/pasien/{id}');
  assert.equal(restRouteOf('GET', '/api/v1/pasien/x/y/attacker', '/api/v1'), '/api/v1/{unknown}');
  assert.equal(restRouteOf('DELETE', '/api/v1/health', '/api/v1'), '/api/v1/{unknown}');
});
