// MCP agents for cross-service tests and the bench: the official SDK's client with its own OAuth
// client support (the provider of examples/mcp-agent-provider.ts, given a client the hospital's
// administrator registered), a clinic day for it to read, the token relay and the conformance suite's
// runner. The SDK finds the metadata from the server's 401 and builds the authorization request; the
// test plays the browser with the URL it hands to redirectToAuthorization.
import { spawn } from 'node:child_process';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort, repoRoot } from '@simrs/platform/testing';
import { nikFor } from './dashboard.ts';
import type { Browserless } from './oauth.ts';

export { PreRegisteredAgent } from '../../examples/mcp-agent-provider.ts';

/** The SDK client and its transport for the MCP server at `url`, authorizing through `provider`. */
export function mcpClient(url: string, provider: OAuthClientProvider): { client: Client; transport: StreamableHTTPClientTransport } {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  return { client: new Client({ name: 'simrs-test-agent', version: '1.0.0' }), transport };
}

/** A tRPC call through the gateway with a session cookie (the dashboard's way), answering its data. */
export async function staffCall<T = Record<string, unknown>>(browser: Browserless, procedure: string, input: unknown): Promise<T> {
  const res = await browser.fetch(`/trpc/${procedure}`, { method: 'POST', json: input });
  const body = (await res.json()) as { result?: { data: T } };
  if (res.status !== 200 || !body.result) throw new Error(`${procedure}: ${res.status} ${JSON.stringify(body)}`);
  return body.result.data;
}

export interface ClinicDay {
  poliId: string;
  pasienId: string;
  nik: string;
  visitId: string;
}

/**
 * A clinic with the doctor assigned, a patient and today's visit there, checked in: what the staff do
 * before an agent acting for the doctor has anything to read. Each browser is signed in already.
 */
export async function seedClinicDay(staff: { admin: Browserless; nurse: Browserless }, doctorUserId: string): Promise<ClinicDay> {
  const poli = await staffCall<{ id: string }>(staff.admin, 'poli.create', { kode: 'UMUM', nama: 'Poli Umum' });
  await staffCall(staff.admin, 'poli.assign', { poliId: poli.id, userId: doctorUserId });
  const nik = nikFor('1980-04-12', 'P', 7);
  const pasien = await staffCall<{ id: string }>(staff.admin, 'pasien.create', {
    nik,
    nama: 'Siti Rahmawati',
    tempatLahir: 'Jakarta',
    tanggalLahir: '1980-04-12',
    jenisKelamin: 'P',
    alamat: 'Jl. Melati No. 7',
    kotaKabupaten: 'Jakarta Selatan',
    provinsi: 'DKI Jakarta',
  });
  const visit = await staffCall<{ id: string }>(staff.admin, 'kunjungan.register', { pasienId: pasien.id, poliId: poli.id });
  await staffCall(staff.nurse, 'kunjungan.arrive', { id: visit.id });
  return { poliId: poli.id, pasienId: pasien.id, nik, visitId: visit.id };
}

/** A loopback relay to `target` that adds `Authorization: Bearer <token>` to every request it passes on. */
export async function startTokenRelay(target: string, token: string): Promise<{ url: string; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: upstream.host, authorization: `Bearer ${token}` };
    const out = request(upstream, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `conformance server` (the project's Node runs it: it needs a newer one than some systems have). */
export async function runConformance(url: string, baseline: string): Promise<{ code: number | null; output: string }> {
  const cli = join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const child = spawn(process.execPath, [cli, 'server', '--url', url, '--expected-failures', baseline], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}
