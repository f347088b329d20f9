// An AI agent's first minutes with SIMRS's MCP server, with the official MCP SDK: a client registered
// with the hospital administrator's initial access token, the authorization the SDK starts from the
// server's 401 (you sign in and allow it in a browser; the answer comes back to a loopback redirect
// URI), the tools, and today's worklist of every clinic.
//
//   IAT=<initial access token> node examples/mcp-agent.ts
//
// Environment: IAT (required: `npm run admin -- issue-registration-token --as <admin>`), SIMRS_URL (the
// gateway's public URL, default http://localhost:8080), REDIRECT_PORT (the loopback port for the
// redirect URI, default 8766). The line starting with `OPEN` is what you open in a browser.
import { createServer } from 'node:http';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PreRegisteredAgent } from './mcp-agent-provider.ts';

const base = (process.env.SIMRS_URL ?? 'http://localhost:8080').replace(/\/$/, '');
const iat = process.env.IAT;
const port = Number(process.env.REDIRECT_PORT ?? 8766);
if (!iat) {
  console.error('Set IAT to an initial access token: npm run admin -- issue-registration-token --as <admin e-mail>');
  process.exit(2);
}
const mcpUrl = new URL(`${base}/api/v1/mcp`);
const redirectUri = `http://127.0.0.1:${port}/callback`;

// 1. The agent's client, registered under the administrator's authority (RFC 7591 with an initial
//    access token): a public native application with a loopback redirect URI.
const registration = await fetch(`${base}/api/auth/oauth2/register`, {
  method: 'POST',
  headers: { authorization: `Bearer ${iat}`, 'content-type': 'application/json' },
  body: JSON.stringify({
    client_name: 'Asisten Klinik',
    redirect_uris: [redirectUri],
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
  }),
});
const registered = (await registration.json()) as { client_id?: string };
if (!registered.client_id) throw new Error(`registration: ${registration.status} ${JSON.stringify(registered)}`);
console.log(`1. registered client ${registered.client_id}`);

// 2. The SDK meets the 401, finds the metadata and asks for authorization; the browser comes back here.
const callback = new Promise<string>((resolve, reject) => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', redirectUri);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Allowed: you can close this tab.');
    server.close();
    const code = url.searchParams.get('code');
    if (code) resolve(code);
    else reject(new Error(`authorization refused: ${url.searchParams.get('error')}`));
  }).listen(port, '127.0.0.1');
});
const agent = new PreRegisteredAgent(registered.client_id, redirectUri, (url) => console.log(`OPEN ${url.href}`));
const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent });
try {
  await new Client({ name: 'mcp-agent-example', version: '1.0.0' }).connect(first);
} catch (err) {
  if (!(err instanceof UnauthorizedError)) throw err;
}
await first.finishAuth(await callback);
console.log(`2. authorized for ${mcpUrl.href} (scope: ${agent.tokens()?.scope ?? ''})`);

// 3. Connected: the tools the server offers.
const client = new Client({ name: 'mcp-agent-example', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: agent }));
const { tools } = await client.listTools();
console.log(`3. tools: ${tools.map((t) => t.name).join(', ')}`);

// 4. Today's worklist of every clinic.
const result = await client.callTool({ name: 'clinic_worklist', arguments: {} });
if (result.isError) throw new Error(JSON.stringify(result.content));
const { visits } = result.structuredContent as { visits: Array<{ clinic: string; queueNumber: number; name: string; status: string }> };
console.log(`4. today's worklist: ${visits.length} visit(s)`);
for (const v of visits) console.log(`   ${v.clinic} #${v.queueNumber} ${v.name} (${v.status})`);
await client.close();
