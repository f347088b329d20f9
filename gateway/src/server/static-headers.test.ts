import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import helmet from 'helmet';
import { staticHeaders } from './static-headers.ts';

const OPTIONS = { contentSecurityPolicy: { directives: { 'script-src': ["'self'"], 'connect-src': ["'self'", 'https://app.example'] } } };

async function headersOf(app: express.Express): Promise<Array<[string, string]>> {
  const server = createServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await res.text();
    const headers: Array<[string, string]> = [];
    res.headers.forEach((value, name) => {
      if (name !== 'date' && name !== 'keep-alive') headers.push([name, value]);
    });
    return headers;
  } finally {
    server.close();
  }
}

const app = (middleware: express.RequestHandler) => {
  const a = express();
  a.use(middleware);
  a.get('/', (_req, res) => void res.send('ok'));
  return a;
};

test('replays exactly the headers helmet sets (names, values, the CSP string), on every response', async () => {
  const expected = await headersOf(app(helmet(OPTIONS)));
  assert.ok(expected.some(([name]) => name === 'content-security-policy'));
  assert.ok(expected.some(([name]) => name === 'strict-transport-security'));
  const replayed = app(staticHeaders(helmet(OPTIONS)));
  assert.deepEqual(await headersOf(replayed), expected);
  assert.deepEqual(await headersOf(replayed), expected);
});

test('refuses a middleware that does not call next at once (it could depend on the request)', () => {
  assert.throws(() => staticHeaders(() => {}), /did not call next/);
});
