// What test/bad-input.test.ts and test/bad-input-routes.test.ts share: each runs its own stack with
// one signed-in administrator, its gateway not throttling the forged credentials the tests send on
// purpose (throttling them is another test's subject), hooked to the file by `useBadInputStack`; raw
// HTTP/1.1 exchanges; JSON nested to any depth. The stack and the session are exported as live
// bindings, set by that hook, so that both files' tests read `stack`, `cookie` and `json` as the
// names they are.
import { connect } from 'node:net';
import { after, before } from 'node:test';
import type { Stack } from '../../scripts/lib/stack.ts';
import { startTestStack } from './stack.ts';
import type { TestStack } from './stack.ts';
import { signInWithOtp } from './users.ts';

export let stack: Stack;
/** The administrator's session cookie. */
export let cookie: string;
/** Headers of a signed-in JSON request from the stack's public origin. */
export let json: Record<string, string>;

/** Starts the stack and signs the administrator in before the file's tests; stops it after them. */
export function useBadInputStack(name: string): void {
  let whole: TestStack | undefined;
  before(async () => {
    whole = await startTestStack(name, [{ email: 'admin@rs-bad.test', tenant: 'rs-bad', role: 'tenant_admin' }], {
      env: { gateway: { CREDENTIAL_FAILURES_PER_MINUTE: '100000' } },
    });
    stack = whole.stack;
    ({ cookie } = await signInWithOtp(stack, whole.smtp, 'admin@rs-bad.test'));
    json = { 'content-type': 'application/json', origin: stack.publicUrl, cookie };
  });
  after(async () => {
    await whole?.stop();
  });
}

export const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
export const nestedObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** A raw HTTP/1.1 exchange over a socket: methods, headers and bytes fetch() refuses to send. */
export function raw(method: string, path: string, headers: [string, string][], body?: Buffer | string) {
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    const url = new URL(stack.gatewayUrl);
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    const lines = [`${method} ${path} HTTP/1.1`, `host: ${url.host}`, 'connection: close', ...headers.map(([k, v]) => `${k}: ${v}`)];
    if (payload && !headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k))) lines.push(`content-length: ${payload.length}`);
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    // A server that refuses a large body answers and closes while the rest is still being written: the
    // write then fails (EPIPE, ECONNRESET), but the answer has arrived. Only no answer at all is an error.
    let failed: Error | undefined;
    socket.on('error', (err) => (failed = err));
    socket.on('close', () => {
      if (chunks.length === 0 && failed) return reject(failed);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const out: Record<string, string> = {};
      for (const line of headerLines) {
        const i = line.indexOf(':');
        out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      let responseBody = rest.join('\r\n\r\n');
      if (/chunked/i.test(out['transfer-encoding'] ?? '')) responseBody = dechunk(responseBody);
      resolve({ status: Number(statusLine.split(' ')[1]), headers: out, body: responseBody });
    });
    socket.write(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload ?? Buffer.alloc(0)]));
  });
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const i = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, i), 16);
    if (!size) return out;
    out += rest.slice(i + 2, i + 2 + size);
    rest = rest.slice(i + 2 + size + 2);
  }
}
