// Where sign-in links land.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { foreignReturnField, landing, keepLinkOnSite } from './email.ts';

const SITE = 'https://simrs.example.org';
const VERIFY = `${SITE}/api/auth/magic-link/verify?token=t`;

describe('sign-in links', () => {
  test('links land on the dashboard and fail back to its sign-in page', () => {
    const url = landing(`${VERIFY}&callbackURL=%2F`, SITE);
    const u = new URL(url);
    assert.equal(u.searchParams.get('callbackURL'), `${SITE}/`);
    assert.equal(u.searchParams.get('errorCallbackURL'), `${SITE}/masuk`);
    // Absolute on the site: Better Auth decodes the parameter once more, which cannot change its origin.
    const kept = new URL(landing(`${VERIFY}&callbackURL=%2Foauth%2Fcontinue%3Fa%3D1`, SITE));
    assert.equal(kept.searchParams.get('callbackURL'), `${SITE}/oauth/continue?a=1`);
  });

  test('a return address that leaves the site is replaced by the default one', () => {
    const u = new URL(
      landing(
        `${VERIFY}&callbackURL=${encodeURIComponent('/.//evil.example')}&errorCallbackURL=${encodeURIComponent('/..//evil.example')}`,
        SITE,
      ),
    );
    assert.equal(u.searchParams.get('callbackURL'), `${SITE}/`);
    assert.equal(u.searchParams.get('errorCallbackURL'), `${SITE}/masuk`);
  });

  test('a changed link is put back on the site before Better Auth reads it', () => {
    const query: Record<string, unknown> = {
      token: 't',
      callbackURL: '/%2F%2Fevil.example',
      errorCallbackURL: 'https://evil.example/',
      newUserCallbackURL: '/\\evil.example',
    };
    keepLinkOnSite(query, SITE);
    assert.deepEqual(query, {
      token: 't',
      callbackURL: `${SITE}/`,
      errorCallbackURL: `${SITE}/masuk`,
      newUserCallbackURL: `${SITE}/`,
    });
    const good: Record<string, unknown> = { token: 't', callbackURL: `${SITE}/pasien` };
    keepLinkOnSite(good, SITE);
    assert.deepEqual(good, { token: 't', callbackURL: `${SITE}/pasien` });
  });

  test('a link request names the first return address that leaves the site', () => {
    assert.equal(foreignReturnField({ email: 'a@b.c', callbackURL: '/pasien', errorCallbackURL: '/masuk' }, SITE), undefined);
    assert.equal(foreignReturnField({ email: 'a@b.c', callbackURL: `${SITE}/` }, SITE), undefined);
    assert.equal(foreignReturnField({ email: 'a@b.c', callbackURL: '/.//evil.example' }, SITE), 'callbackURL');
    assert.equal(foreignReturnField({ email: 'a@b.c', errorCallbackURL: 'javascript:alert(1)' }, SITE), 'errorCallbackURL');
    assert.equal(foreignReturnField({ email: 'a@b.c', newUserCallbackURL: 42 }, SITE), 'newUserCallbackURL');
  });
});
