import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { safeReturnPath } from './return-path.ts';

const ORIGIN = 'https://simrs.example.org';

/** Each of these, read by a browser or a router, could leave the site (or run script). */
const ATTACKS = [
  '//evil.example',
  '/\\evil.example',
  '/.//evil.example',
  '/..//evil.example',
  '/./..//evil.example/x?y#z',
  '%2F%2Fevil.example',
  '%5Cevil.example',
  '/%2F%2Fevil.example',
  '/%2f/evil.example',
  '/%5Cevil.example',
  '/%5cevil.example',
  '/%252F%252Fevil.example',
  '/%2e/%2Fevil.example',
  '/%2e%2e/%2F/evil.example',
  'jav\tascript:alert(1)',
  'java\nscript:alert(1)',
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'https://evil.example',
  'https://evil.example/pasien',
  'http://evil.example',
  'http://simrs.example.org/pasien',
  'https://simrs.example.org.evil.example/',
  'https://user@evil.example/',
  'https://simrs.example.org//evil.example',
  'https://simrs.example.org/.//evil.example',
  '///evil.example',
  '\\\\evil.example',
  ' //evil.example',
  '\t//evil.example',
  '/\t/evil.example',
  '/pasien\n',
  '/pasien\u0000',
  '/pasien\u2028x',
  'pasien',
  '?next=x',
  '#x',
  '.',
  '',
];

describe('safeReturnPath', () => {
  for (const attack of ATTACKS)
    test(`refuses ${JSON.stringify(attack)}`, () => {
      assert.equal(safeReturnPath(attack, ORIGIN), '/');
      assert.equal(safeReturnPath(attack, ORIGIN, '/auth/account'), '/auth/account');
      assert.equal(safeReturnPath(attack, ORIGIN, null), null);
    });

  test('keeps a path of the site, with its query and fragment', () => {
    assert.equal(safeReturnPath('/', ORIGIN), '/');
    assert.equal(safeReturnPath('/pasien?q=a#x', ORIGIN), '/pasien?q=a#x');
    assert.equal(safeReturnPath('/pasien/123', ORIGIN), '/pasien/123');
    assert.equal(safeReturnPath('/auth/device?user_code=ABCD-EFGH', ORIGIN), '/auth/device?user_code=ABCD-EFGH');
    // What follows the path cannot move it to another origin.
    assert.equal(safeReturnPath('/pasien?back=//evil.example', ORIGIN), '/pasien?back=//evil.example');
  });

  test('an absolute URL of the site becomes its path, then is checked as one', () => {
    assert.equal(safeReturnPath('https://simrs.example.org/pasien?q=a#x', ORIGIN), '/pasien?q=a#x');
    assert.equal(safeReturnPath('https://simrs.example.org', ORIGIN), '/');
    assert.equal(safeReturnPath('HTTPS://SIMRS.example.org/pasien', ORIGIN), '/pasien');
  });

  test('dot segments are resolved as a browser would', () => {
    assert.equal(safeReturnPath('/a/../pasien', ORIGIN), '/pasien');
  });

  test('nothing given, or not a string, is the fallback', () => {
    assert.equal(safeReturnPath(undefined, ORIGIN), '/');
    assert.equal(safeReturnPath(null, ORIGIN, '/auth/account'), '/auth/account');
    assert.equal(safeReturnPath(42 as unknown as string, ORIGIN), '/');
  });

  test('the origin may be given with a path or trailing slash (only its origin counts)', () => {
    assert.equal(safeReturnPath('https://simrs.example.org/pasien', `${ORIGIN}/`), '/pasien');
    assert.equal(safeReturnPath('http://localhost:8080/pasien', 'http://localhost:8080'), '/pasien');
    assert.equal(safeReturnPath('https://localhost:8080/pasien', 'http://localhost:8080'), '/');
  });
});
