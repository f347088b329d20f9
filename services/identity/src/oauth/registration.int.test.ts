// Dynamic client registration (RFC 7591) and the URIs in a client's metadata: every `*_uri` is https;
// http only on a loopback host and only for redirect URIs (RFC 8252 §7.3); anything else is refused
// with RFC 7591's error shape naming the field, by an initial access token or an administrator's session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { signInWithOtp, startFixture } from '../testing/index.ts';
import type { Fixture } from '../testing/index.ts';

const ADMIN = 'admin@rs-demo.test';
const identityClient = (address: string) => createClient(IdentityService, address);
const NATIVE = { client_name: 'Aplikasi', application_type: 'native', token_endpoint_auth_method: 'none' };
const LOOPBACK = ['http://127.0.0.1:9/callback'];

/** Metadata URIs a consent page, a dashboard or identity itself might link to or fetch. */
const METADATA_URI_FIELDS = ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri', 'jwks_uri', 'initiate_login_uri'];
const BAD_URIS = [
  'javascript:alert(document.cookie)',
  'JavaScript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'http://app.example/about',
  'http://127.0.0.1:9/about', // loopback http is for redirect URIs only
  '//app.example/about',
  'not a url',
];

describe('client registration: the URIs of a client', () => {
  let f: Fixture;
  let identity: ReturnType<typeof identityClient>;
  let token: string;

  before(async () => {
    f = await startFixture('registration');
    identity = identityClient(f.grpcAddress);
    // Refusals do not consume the token (they come before it is checked): one token serves every case.
    ({ token } = await identity.issueRegistrationToken({ actor: { email: ADMIN }, allowWrite: false, ttlSeconds: 0 }));
  });
  after(async () => {
    identity?.close();
    await f?.stop();
  });

  // Each request from its own client address: Better Auth limits registrations per address.
  const register = (body: Record<string, unknown>, bearer = token) =>
    f.client().fetch('/api/auth/oauth2/register', { body, headers: { authorization: `Bearer ${bearer}` } });

  async function assertRefused(res: Response, error: string, field: string, what: string): Promise<void> {
    const text = await res.text();
    assert.equal(res.status, 400, `${what}: ${res.status} ${text}`);
    const body = JSON.parse(text) as Record<string, unknown>;
    assert.equal(body.error, error, `${what}: ${text}`);
    assert.equal(typeof body.error_description, 'string', `${what}: ${text}`);
    assert.match(body.error_description as string, new RegExp(field), `${what}: names the field`);
  }

  test('a metadata URI that is not https is refused with invalid_client_metadata naming the field', async () => {
    for (const field of METADATA_URI_FIELDS)
      for (const uri of BAD_URIS)
        await assertRefused(
          await register({ ...NATIVE, redirect_uris: LOOPBACK, [field]: uri }),
          'invalid_client_metadata',
          field,
          `${field}=${uri}`,
        );
    await assertRefused(
      await register({ ...NATIVE, redirect_uris: LOOPBACK, logo_uri: 42 }),
      'invalid_client_metadata',
      'logo_uri',
      'a number',
    );
  });

  test('a redirect URI that is neither https nor loopback http is refused with invalid_redirect_uri', async () => {
    for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'http://app.example/callback']) {
      await assertRefused(await register({ ...NATIVE, redirect_uris: [uri] }), 'invalid_redirect_uri', 'redirect_uris', uri);
      await assertRefused(
        await register({ ...NATIVE, redirect_uris: LOOPBACK, post_logout_redirect_uris: [uri] }),
        'invalid_client_metadata',
        'post_logout_redirect_uris',
        `post-logout ${uri}`,
      );
    }
  });

  test("an administrator's session is held to the same rule", async () => {
    const admin = f.client();
    await signInWithOtp(f, admin, ADMIN);
    const res = await admin.fetch('/api/auth/oauth2/register', {
      body: { ...NATIVE, redirect_uris: LOOPBACK, tos_uri: 'javascript:alert(1)' },
    });
    await assertRefused(res, 'invalid_client_metadata', 'tos_uri', 'by session');
  });

  test('https metadata URIs and loopback http redirect URIs are registered', async () => {
    const pages = {
      client_uri: 'https://app.example/',
      logo_uri: 'https://app.example/logo.png',
      policy_uri: 'https://app.example/privacy',
      tos_uri: 'https://app.example/terms',
    };
    const native = await register({ ...NATIVE, redirect_uris: [...LOOPBACK, 'http://[::1]:9/cb', 'http://localhost:9/cb'], ...pages });
    assert.equal(native.status, 201, await native.clone().text());
    const created = (await native.json()) as Record<string, unknown>;
    for (const [field, uri] of Object.entries(pages)) assert.equal(created[field], uri, field);

    const { token: second } = await identity.issueRegistrationToken({ actor: { email: ADMIN }, allowWrite: false, ttlSeconds: 0 });
    const web = await register(
      {
        client_name: 'Aplikasi Web',
        redirect_uris: ['https://app.example/callback'],
        post_logout_redirect_uris: ['https://app.example/signed-out'],
        ...pages,
      },
      second,
    );
    assert.equal(web.status, 201, await web.clone().text());
  });
});
