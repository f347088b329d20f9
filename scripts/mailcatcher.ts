// Development mail catcher: a real SMTP server on loopback that keeps every message it receives as a
// file under .data/mail/ (the latest 200), plus a small web page listing them, so that a newcomer
// running `npm start` can read the sign-in code or open the magic link. `npm run mail` prints the
// same messages in the terminal. Never for production: it accepts mail from anyone on this machine
// and shows OTPs and links in clear, which is the point here.
//
//   MAILCATCHER_SMTP_PORT  SMTP port (default 1025; 0 picks a free one)
//   MAILCATCHER_HTTP_PORT  web page port (default 8025; 0 picks a free one)
//   MAILCATCHER_HOST       address to listen on (default 127.0.0.1)
//   MAILCATCHER_DIR        where messages are kept (default <repo>/.data/mail)
//   MAILCATCHER_KEEP       how many messages to keep (default 200)
//
// When both ports are bound it prints one line: `mailcatcher smtp=PORT http=PORT`.
// Web: GET / (the page), GET /api/messages?to=ADDRESS&limit=N (JSON, newest first).
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerDataStream } from 'smtp-server';
import { listMessages, mailDir, saveMessage, trimMessages } from './mail.ts';
import type { StoredMessage } from './mail.ts';

const env = process.env;
function portFrom(name: string, fallback: number): number {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) {
    console.error(`configuration error: ${name}: must be a port number`);
    process.exit(1);
  }
  return value;
}

const smtpPort = portFrom('MAILCATCHER_SMTP_PORT', 1025);
const httpPort = portFrom('MAILCATCHER_HTTP_PORT', 8025);
const host = env.MAILCATCHER_HOST || '127.0.0.1';
const dir = mailDir();
const keep = Math.max(1, Number(env.MAILCATCHER_KEEP) || 200);
const MAX_SIZE = 10 * 1024 * 1024;

await mkdir(dir, { recursive: true });

const smtp = new SMTPServer({
  name: 'mailcatcher.localhost',
  banner: 'SIMRS development mail catcher',
  size: MAX_SIZE,
  authOptional: true,
  allowInsecureAuth: true,
  // Plain SMTP only: the notifier talks to it without TLS (SMTP_TLS defaults to none on loopback).
  disabledCommands: ['STARTTLS'],
  disableReverseLookup: true,
  logger: false,
  onAuth(_auth, _session, callback) {
    callback(null, { user: 'dev' });
  },
  onData(stream: SMTPServerDataStream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (stream.sizeExceeded) return callback(Object.assign(new Error('message too large'), { responseCode: 552 }));
      saveMessage(dir, Buffer.concat(chunks))
        .then(() => trimMessages(dir, keep))
        .then(
          () => callback(),
          (err: unknown) => callback(Object.assign(new Error(`cannot store: ${(err as Error).message}`), { responseCode: 451 })),
        );
    });
  },
});

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
/** Escaped text with http(s) links made clickable, so the magic link can be opened from the page. */
const linkify = (s: string) =>
  escapeHtml(s).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}" target="_blank" rel="noreferrer">${url}</a>`);

function page(messages: StoredMessage[]): string {
  const items = messages
    .map(
      (m) => `<article>
<h2>${escapeHtml(m.subject || '(no subject)')}</h2>
<p class="meta">To <b>${escapeHtml(m.to.join(', '))}</b> &middot; from ${escapeHtml(m.from)} &middot; ${escapeHtml(m.date)}</p>
<pre>${linkify(m.text)}</pre>
</article>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Mail catcher (${messages.length})</title>
<meta http-equiv="refresh" content="5">
<style>
body{font-family:system-ui,sans-serif;margin:0;padding:16px 24px;background:#f4f6f8;color:#1a1a1a}
article{background:#fff;border-radius:6px;padding:12px 16px;margin:0 0 12px;max-width:900px}
h1{font-size:20px}h2{font-size:16px;margin:0 0 4px}.meta{color:#555;font-size:13px;margin:0 0 8px}
pre{white-space:pre-wrap;word-break:break-word;font-size:14px;margin:0}
</style></head><body>
<h1>SIMRS development mail catcher</h1>
<p>Newest first; the page refreshes every 5 seconds. <code>npm run mail</code> prints the same in the terminal.</p>
${items || '<p>No mail yet.</p>'}
</body></html>
`;
}

const http = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const respond = (status: number, type: string, body: string) =>
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  if (req.method !== 'GET') return respond(405, 'text/plain', 'method not allowed\n');
  if (url.pathname === '/healthz') return respond(200, 'application/json', '{"status":"ok"}');
  if (url.pathname !== '/' && url.pathname !== '/api/messages') return respond(404, 'text/plain', 'not found\n');
  const to = url.searchParams.get('to')?.toLowerCase();
  const limit = Math.min(Math.max(Number(url.searchParams.get('limit')) || 50, 1), keep);
  listMessages(dir, { limit, to }).then(
    (messages) => {
      if (url.pathname === '/api/messages') respond(200, 'application/json', JSON.stringify(messages));
      else respond(200, 'text/html; charset=utf-8', page(messages));
    },
    (err: unknown) => respond(500, 'text/plain', `cannot read ${dir}: ${(err as Error).message}\n`),
  );
});

function listen(
  server: { listen(port: number, host: string, cb: () => void): unknown; once(e: 'error', cb: (err: Error) => void): unknown },
  port: number,
  what: string,
) {
  return new Promise<void>((resolve) => {
    server.once('error', (err: Error) => {
      console.error(`mailcatcher: cannot listen for ${what} on ${host}:${port}: ${err.message}`);
      process.exit(1);
    });
    server.listen(port, host, resolve);
  });
}

await listen(smtp, smtpPort, 'SMTP');
await listen(http, httpPort, 'HTTP');
const boundSmtp = (smtp.server.address() as AddressInfo).port;
const boundHttp = (http.address() as AddressInfo).port;
console.log(`mailcatcher smtp=${boundSmtp} http=${boundHttp}`);

function stop() {
  http.close();
  http.closeAllConnections();
  smtp.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 2_000).unref();
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
// Started by npm start with an IPC channel: its closing means npm start is gone, however it died.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', stop);
}
