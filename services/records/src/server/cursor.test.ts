import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRPCError } from '@trpc/server';
import { cursors } from './cursor.ts';

const c = cursors('x'.repeat(32));
/** A token's sealed bytes (after the seal's version prefix). */
const bytesOf = (token: string) => Buffer.from(token.slice(token.indexOf('.') + 1), 'base64url');
const withBytes = (token: string, bytes: Buffer) => `${token.slice(0, token.indexOf('.') + 1)}${bytes.toString('base64url')}`;

test('a cursor round-trips and reveals nothing', () => {
  const token = c.seal('pasien.nama', 'rs-demo', ['budi santoso', '0f1e']);
  assert.doesNotMatch(token, /budi/);
  assert.doesNotMatch(bytesOf(token).toString('latin1'), /budi/);
  assert.deepEqual(c.open(token, 'pasien.nama', 'rs-demo'), ['budi santoso', '0f1e']);
});

test('a cursor is bound to its tenant, its listing and its key', () => {
  const token = c.seal('pasien.rm', 'rs-demo', ['00000042']);
  assert.throws(
    () => c.open(token, 'pasien.rm', 'rs-lain'),
    (e: unknown) => e instanceof TRPCError && e.code === 'BAD_REQUEST',
  );
  assert.throws(() => c.open(token, 'pasien.nama', 'rs-demo'), TRPCError);
  assert.throws(() => cursors('y'.repeat(32)).open(token, 'pasien.rm', 'rs-demo'), TRPCError);
  for (const at of [0, 12, -1]) {
    const tampered = bytesOf(token);
    tampered[at < 0 ? tampered.length + at : at]! ^= 1;
    assert.throws(() => c.open(withBytes(token, tampered), 'pasien.rm', 'rs-demo'), TRPCError);
  }
  assert.throws(() => c.open(token.slice(token.indexOf('.') + 1), 'pasien.rm', 'rs-demo'), TRPCError, 'without its prefix');
  for (const junk of ['', 'abc', '!!!', 'x'.repeat(500)]) assert.throws(() => c.open(junk, 'pasien.rm', 'rs-demo'), TRPCError);
});

test('every new seal has an IV of its own', () => {
  const tokens = Array.from({ length: 1_300 }, (_, i) => c.seal('pasien.rm', 'rs-iv', [String(i)]));
  const ivs = new Set(tokens.map((t) => bytesOf(t).subarray(0, 12).toString('hex')));
  assert.equal(ivs.size, tokens.length);
  for (const [i, token] of tokens.entries()) assert.deepEqual(c.open(token, 'pasien.rm', 'rs-iv'), [String(i)]);
});

test('the same page end gets the same token; another tenant, listing or key its own', () => {
  const token = c.seal('pasien.rm', 'rs-demo', ['00000099']);
  assert.equal(c.seal('pasien.rm', 'rs-demo', ['00000099']), token);
  const others = [
    c.seal('pasien.rm', 'rs-lain', ['00000099']),
    c.seal('pasien.lahir', 'rs-demo', ['00000099']),
    c.seal('pasien.rm', 'rs-demo', ['00000098']),
    cursors('z'.repeat(32)).seal('pasien.rm', 'rs-demo', ['00000099']),
  ];
  assert.equal(new Set([token, ...others]).size, 5);
  assert.throws(() => c.open(token, 'pasien.rm', 'rs-lain'), TRPCError, 'a remembered token is still bound to its tenant');
});

test('only the exact token opens: a character added, or another spelling of the same bytes, is refused', () => {
  // base64url decoders skip a lone trailing character and ignore the unused low bits of the last one,
  // so without a check a changed token could still open as the cursor it was made from.
  for (let n = 0; n < 12; n++) {
    const token = c.seal('pasien.nama', 'rs-demo', ['x'.repeat(n)]);
    assert.deepEqual(c.open(token, 'pasien.nama', 'rs-demo'), ['x'.repeat(n)]);
    for (const changed of [`${token}x`, `${token}A`, `${token}=`, `${token}==`, ` ${token}`])
      assert.throws(() => c.open(changed, 'pasien.nama', 'rs-demo'), TRPCError, `${n}: ${changed.length - token.length} added`);
    const last = token.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const other of alphabet) {
      const respelled = token.slice(0, -1) + other;
      if (other === last || !bytesOf(respelled).equals(bytesOf(token))) continue;
      assert.throws(() => c.open(respelled, 'pasien.nama', 'rs-demo'), TRPCError, `${n}: ${last} spelled ${other}`);
    }
  }
});
