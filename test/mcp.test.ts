// AI agents through the gateway: the official MCP SDK client with its own OAuth support finds the MCP
// server's metadata from the 401, uses a client the hospital's administrator registered, completes the
// authorization code flow with PKCE and the `resource` parameter through the real sign-in and consent,
// lists and calls every tool, and steps up to simrs:write when a write tool answers 403
// insufficient_scope. A token for another resource, and a session cookie, get nowhere.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  authorizeWithFetch,
  Browserless,
  DEVICE_CODE_GRANT,
  issueRegistrationToken,
  registerClient,
  startOAuthWorld,
  tokensFor,
} from './support/oauth.ts';
import type { OAuthWorld, RegisteredClient } from './support/oauth.ts';
import { join } from 'node:path';
import { repoRoot } from '@simrs/platform/testing';
import { mcpClient, PreRegisteredAgent, runConformance, seedClinicDay, startTokenRelay } from './support/mcp.ts';
import type { ClinicDay } from './support/mcp.ts';

const ADMIN = 'admin@rs-mcp.test';
const DOCTOR = 'dokter@rs-mcp.test';
const NURSE = 'perawat@rs-mcp.test';
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the MCP server through the gateway', () => {
  let world: OAuthWorld;
  let mcpUrl: string;
  let app: RegisteredClient;
  let day: ClinicDay;
  /** The doctor's browser, signed in once (the sign-in codes per address are limited). */
  let doctor: Browserless;
  /** A doctor's access token for the MCP server, as the SDK client gets it (the 401, sign-in, consent). */
  async function mcpToken(): Promise<string> {
    const agent = new PreRegisteredAgent(app.clientId, world.redirectUri);
    const first = mcpClient(mcpUrl, agent);
    await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
    const { callback } = await authorizeWithFetch(world.stack, world.smtp, doctor, agent.authorizationUrls[0]!, { email: DOCTOR });
    await first.transport.finishAuth(callback.searchParams.get('code')!);
    return agent.tokens()!.access_token;
  }

  before(async () => {
    world = await startOAuthWorld('mcp', [
      { email: ADMIN, tenant: 'rs-mcp', role: 'tenant_admin' },
      { email: DOCTOR, tenant: 'rs-mcp', role: 'doctor' },
      { email: NURSE, tenant: 'rs-mcp', role: 'nurse' },
    ]);
    mcpUrl = `${world.stack.publicUrl}/api/v1/mcp`;
    const [admin, nurse] = [new Browserless(world.stack), new Browserless(world.stack)];
    doctor = new Browserless(world.stack);
    await admin.signIn(world.smtp, ADMIN);
    await nurse.signIn(world.smtp, NURSE);
    await doctor.signIn(world.smtp, DOCTOR);
    const session = (await (await doctor.fetch('/api/auth/get-session')).json()) as { user: { id: string } };
    day = await seedClinicDay({ admin, nurse }, session.user.id);
    app = await registerClient(world.stack, await issueRegistrationToken(world.stack, ADMIN, true), {
      client_name: 'Asisten Klinik',
      redirect_uris: [world.redirectUri],
      token_endpoint_auth_method: 'none',
      // An agent on the user's machine: a native app with a loopback redirect (RFC 8252).
      application_type: 'native',
      grant_types: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT],
      response_types: ['code'],
      scope: 'openid simrs:read simrs:write',
    });
  });
  after(async () => {
    await world?.stop();
  });

  test('without a token: 401 naming the MCP resource metadata, which names identity and the scopes', async () => {
    const res = await fetch(mcpUrl.replace(world.stack.publicUrl, world.stack.gatewayUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
    assert.equal(metadataUrl, `${world.stack.publicUrl}/.well-known/oauth-protected-resource/api/v1/mcp`);
    const metadata = (await (await fetch(metadataUrl!.replace(world.stack.publicUrl, world.stack.gatewayUrl))).json()) as Json;
    assert.deepEqual(metadata.resource, mcpUrl);
    assert.deepEqual(metadata.authorization_servers, [`${world.stack.publicUrl}/api/auth`]);
    assert.deepEqual(metadata.scopes_supported, ['simrs:read', 'simrs:write']);
  });

  test('the SDK client authorizes through sign-in and consent, calls every tool, and steps up for the write', async () => {
    const agent = new PreRegisteredAgent(app.clientId, world.redirectUri);
    const first = mcpClient(mcpUrl, agent);
    await assert.rejects(first.client.connect(first.transport), UnauthorizedError, 'the 401 starts the authorization');
    const request = agent.authorizationUrls[0]!;
    assert.equal(request.searchParams.get('resource'), mcpUrl);
    assert.equal(request.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(request.searchParams.get('scope'), 'simrs:read', 'the scope the challenge named');
    const { callback, consent } = await authorizeWithFetch(world.stack, world.smtp, doctor, request, { email: DOCTOR });
    assert.equal(consent?.clientName, 'Asisten Klinik');
    await first.transport.finishAuth(callback.searchParams.get('code')!);
    const audience = JSON.parse(Buffer.from(agent.tokens()!.access_token.split('.')[1]!, 'base64url').toString()) as Json;
    assert.equal(audience.aud, mcpUrl);

    const { client, transport } = mcpClient(mcpUrl, agent);
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.equal(tools.length, 5);
    const call = async (name: string, args: Json) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    const ok = (result: CallToolResult): Json => {
      assert.ok(!result.isError, JSON.stringify(result.content));
      return result.structuredContent as Json;
    };
    assert.equal(ok(await call('find_patients', { name: 'siti' })).patients[0].pasienId, day.pasienId);
    assert.equal(ok(await call('clinic_worklist', { clinicCode: 'UMUM' })).visits[0].kunjunganId, day.visitId);
    assert.equal(ok(await call('patient_summary', { pasienId: day.pasienId })).lastVisits[0].kunjunganId, day.visitId);
    assert.equal(ok(await call('visit_details', { kunjunganId: day.visitId })).visit.status, 'arrived');

    // The write with the read-only token: 403 insufficient_scope, and the SDK asks for both scopes.
    const vitals = { kunjunganId: day.visitId, measurements: [{ key: 'nadi', value: 84, unit: '/min' }] };
    await assert.rejects(call('record_vital_signs', vitals), UnauthorizedError);
    const stepUp = agent.authorizationUrls[1]!;
    assert.equal(stepUp.searchParams.get('scope'), 'simrs:read simrs:write');
    assert.equal(stepUp.searchParams.get('resource'), mcpUrl);
    const again = await authorizeWithFetch(world.stack, world.smtp, doctor, stepUp, { email: DOCTOR });
    await transport.finishAuth(again.callback.searchParams.get('code')!);
    assert.equal(ok(await call('record_vital_signs', vitals)).recorded[0].flag, 'N');
    await client.close();
  });

  test('a token for the API is refused by the MCP server, a token for the MCP server by the API, a cookie by both', async () => {
    const apiTokens = await tokensFor(world.stack, world.smtp, app, doctor, DOCTOR, 'openid simrs:read');
    const mcpAt = (token: string, extra: Record<string, string> = {}) =>
      fetch(`${world.stack.gatewayUrl}/api/v1/mcp`, {
        method: 'POST',
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...extra,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const refused = await mcpAt(apiTokens.access_token);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /invalid_token/);

    const forMcp = await mcpToken();
    assert.equal((await mcpAt(forMcp)).status, 200);
    const onApi = await fetch(`${world.stack.gatewayUrl}/trpc/pasien.list`, { headers: { authorization: `Bearer ${forMcp}` } });
    assert.equal(onApi.status, 401, 'a token for the MCP server is not one for the API');

    assert.equal(
      (await mcpAt('', { cookie: doctor.cookie, origin: world.stack.publicUrl })).status,
      401,
      'no cookie reaches the MCP server',
    );
  });

  test('an agent on a terminal gets a token for the MCP server with the device grant', async () => {
    const post = (path: string, body: URLSearchParams) =>
      fetch(`${world.stack.gatewayUrl}/api/auth${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    const code = (await (
      await post('/device/code', new URLSearchParams({ client_id: app.clientId, scope: 'simrs:read', resource: mcpUrl }))
    ).json()) as Json;
    const page = await doctor.fetch(`/api/auth/device?user_code=${encodeURIComponent(String(code.user_code))}`);
    assert.equal(page.status, 200, await page.text());
    const approved = await doctor.fetch('/api/auth/device/approve', { method: 'POST', json: { userCode: code.user_code } });
    assert.equal(approved.status, 200, await approved.text());
    const token = (await (
      await post(
        '/oauth2/token',
        new URLSearchParams({ grant_type: DEVICE_CODE_GRANT, device_code: code.device_code, client_id: app.clientId }),
      )
    ).json()) as Json;
    const claims = JSON.parse(Buffer.from(String(token.access_token).split('.')[1]!, 'base64url').toString()) as Json;
    assert.equal(claims.aud, mcpUrl);
    const listed = await fetch(`${world.stack.gatewayUrl}/api/v1/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(listed.status, 200);
  });

  test('@modelcontextprotocol/conformance in server mode: what applies passes; the baseline lists the rest, each with its reason', async () => {
    const token = await mcpToken();
    // The suite sends no credentials: a loopback relay adds the agent's token, as an MCP client would.
    const relay = await startTokenRelay(`${world.stack.gatewayUrl}/api/v1/mcp`, token);
    try {
      const { code, output } = await runConformance(relay.url, join(repoRoot, 'test/mcp-conformance-baseline.yml'));
      assert.equal(code, 0, output);
    } finally {
      await relay.stop();
    }
  });
});
