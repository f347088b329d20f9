// identity's settings: defaults, and bad values named.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { schema } from '../config.ts';
import { REQUIRED_ENV } from '../testing/index.ts';

describe('settings', () => {
  test('defaults', () => {
    const c = schema.parse(REQUIRED_ENV);
    assert.equal(c.HTTP_PORT, 4001);
    assert.equal(c.GRPC_PORT, 50051);
    assert.equal(c.MAGIC_LINK_TTL_SECONDS, 300);
    assert.equal(c.OTP_TTL_SECONDS, 300);
    assert.equal(c.PASSKEY_RP_ID, 'simrs.example.org');
    assert.deepEqual(c.CORS_ALLOWED_ORIGINS, []);
    assert.equal(c.COOKIE_DOMAIN, undefined);
    assert.equal(c.MIGRATE_ON_START, true);
  });

  test('bad values name the variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ AUTH_SECRET: 'short' }, 'AUTH_SECRET'],
      [{ PUBLIC_URL: 'https://simrs.example.org/some/path' }, 'PUBLIC_URL'],
      [{ NOTIFIER_GRPC: 'notifier' }, 'NOTIFIER_GRPC'],
      [{ CORS_ALLOWED_ORIGINS: 'https://ok.example,not a url' }, 'CORS_ALLOWED_ORIGINS'],
      [{ OTP_SENDS_PER_ADDRESS_PER_DAY: '2' }, 'OTP_SENDS_PER_ADDRESS_PER_DAY'],
    ];
    for (const [env, name] of cases) {
      const parsed = schema.safeParse({ ...REQUIRED_ENV, ...env });
      assert.equal(parsed.success, false, name);
      assert.ok(
        parsed.error!.issues.some((i) => i.path.join('.').startsWith(name)),
        `${name}: ${JSON.stringify(parsed.error!.issues)}`,
      );
    }
  });
});
