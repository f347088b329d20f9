// The OAuth quickstart of docs/oauth.md as one runnable walk-through, with nothing but HTTP (fetch) so that each
// step maps onto any language's OAuth library: discovery, registration with an initial access token,
// the authorization code flow with PKCE S256 (you sign in and consent in a browser; the answer comes
// back to a loopback redirect URI), the API call, refresh-token rotation, the device grant (RFC 8628),
// and revocation (RFC 7009).
//
//   IAT=<initial access token> node examples/oauth-quickstart.ts
//
// Environment: IAT (required: `npm run admin -- issue-registration-token --as <admin>`), SIMRS_URL (the
// gateway's public URL, default http://localhost:8080), REDIRECT_PORT (the loopback port for the
// redirect URI, default 8765). Lines starting with `OPEN` and `DEVICE` are what you open in a browser.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const base = (process.env.SIMRS_URL ?? 'http://localhost:8080').replace(/\/$/, '');
const iat = process.env.IAT;
const port = Number(process.env.REDIRECT_PORT ?? 8765);
if (!iat) {
  console.error('Set IAT to an initial access token: npm run admin -- issue-registration-token --as <admin e-mail>');
  process.exit(2);
}

async function call(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}
const form = (fields: Record<string, string>, auth?: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...(auth ? { authorization: auth } : {}) },
  body: new URLSearchParams(fields),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// 1. Discovery: everything else is read from here (OpenID Connect Discovery for the issuer /api/auth).
const meta = await call(`${base}/api/auth/.well-known/openid-configuration`);
console.log(`1. issuer ${String(meta.issuer)}`);

// 2. Registration (RFC 7591). A loopback redirect URI is a native application's: say so.
const redirectUri = `http://127.0.0.1:${port}/callback`;
const registered = await call(String(meta.registration_endpoint), {
  method: 'POST',
  headers: { authorization: `Bearer ${iat}`, 'content-type': 'application/json' },
  body: JSON.stringify({
    client_name: 'Aplikasi Rujukan',
    redirect_uris: [redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
  }),
});
const clientId = String(registered.client_id);
const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(String(registered.client_secret))}`).toString('base64')}`;
console.log(`2. registered client ${clientId} (scopes: ${String(registered.scope)})`);

// 3. Authorization code flow with PKCE S256: the browser comes back to the loopback redirect URI.
const verifier = randomBytes(32).toString('base64url');
const state = randomBytes(16).toString('base64url');
const authorize = new URL(String(meta.authorization_endpoint));
for (const [name, value] of Object.entries({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: redirectUri,
  scope: 'openid simrs:read offline_access',
  state,
  code_challenge: createHash('sha256').update(verifier).digest('base64url'),
  code_challenge_method: 'S256',
}))
  authorize.searchParams.set(name, value);
const code = await new Promise<string>((resolve, reject) => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Signed in: you can close this tab.');
    server.close();
    if (url.searchParams.get('state') !== state) return reject(new Error('state mismatch'));
    if (url.searchParams.get('iss') !== meta.issuer) return reject(new Error('issuer mismatch (RFC 9207)'));
    const value = url.searchParams.get('code');
    if (!value) return reject(new Error(`authorization refused: ${url.searchParams.get('error')}`));
    resolve(value);
  });
  server.listen(port, '127.0.0.1', () => console.log(`OPEN ${authorize.href}`));
});
const tokens = await call(
  String(meta.token_endpoint),
  form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }, basic),
);
console.log(`3. tokens: ${String(tokens.token_type)}, expires in ${String(tokens.expires_in)} s, scope ${String(tokens.scope)}`);

// 4. The API with the access token (REST; /trpc/* takes the same token).
const api = (token: string) => fetch(`${base}/api/v1/pasien?limit=1`, { headers: { authorization: `Bearer ${token}` } });
console.log(`4. GET /api/v1/pasien: ${(await api(String(tokens.access_token))).status}`);

// 5. Refresh: the refresh token rotates; the old one must not be used again (reuse ends the grant).
const refreshed = await call(
  String(meta.token_endpoint),
  form({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token) }, basic),
);
console.log(`5. refreshed: new refresh token ${refreshed.refresh_token !== tokens.refresh_token ? 'issued' : 'NOT rotated'}`);

// 6. The device grant (RFC 8628), for a terminal without a browser: the user approves on another device.
const device = await call(String(meta.device_authorization_endpoint), form({ client_id: clientId, scope: 'simrs:read' }, basic));
console.log(`DEVICE ${String(device.verification_uri_complete)} (code ${String(device.user_code)})`);
let interval = Number(device.interval) * 1000;
let deviceTokens: Record<string, unknown> | undefined;
while (!deviceTokens) {
  await sleep(interval);
  const res = await fetch(
    String(meta.token_endpoint),
    form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: String(device.device_code) }, basic),
  );
  const body = (await res.json()) as Record<string, unknown>;
  if (res.ok) deviceTokens = body;
  else if (body.error === 'slow_down') interval += 5000;
  else if (body.error !== 'authorization_pending') throw new Error(`device grant: ${JSON.stringify(body)}`);
}
console.log(`6. device approved: GET /api/v1/pasien: ${(await api(String(deviceTokens.access_token))).status}`);

// 7. Revocation (RFC 7009): revoking the refresh token ends its grant; the gateway refuses its access token within a second.
await fetch(String(meta.revocation_endpoint), form({ token: String(refreshed.refresh_token), token_type_hint: 'refresh_token' }, basic));
let refused = 0;
for (let i = 0; i < 40 && refused !== 401; i++) {
  refused = (await api(String(refreshed.access_token))).status;
  if (refused !== 401) await sleep(25);
}
console.log(`7. revoked: GET /api/v1/pasien with the revoked grant's token: ${refused}`);
console.log(`   the device grant is another grant: ${(await api(String(deviceTokens.access_token))).status}`);
