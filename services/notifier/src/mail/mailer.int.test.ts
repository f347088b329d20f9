// The mailer's two time limits against a real SMTP server (smtp-server) that is slow at chosen steps:
// a relay slow to answer the final "." has the message already, so the send waits for it (RFC 5321
// 4.5.3.2.6) instead of failing and being sent again; a relay slow before that is given up on.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerOptions } from 'smtp-server';
import { createMailer } from './mailer.ts';
import type { OutgoingMail } from './mailer.ts';

const servers: SMTPServer[] = [];
after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

/** An SMTP server on loopback that stores what it accepts; `slow` delays the answer at one step. */
async function relay(slow: { rcptMs?: number; dataEndMs?: number }) {
  const stored: string[] = [];
  const options: SMTPServerOptions = {
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(_address, _session, callback) {
      setTimeout(() => callback(), slow.rcptMs ?? 0);
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        stored.push(Buffer.concat(chunks).toString());
        setTimeout(() => callback(), slow.dataEndMs ?? 0);
      });
    },
  };
  const server = new SMTPServer(options);
  server.on('error', () => {});
  servers.push(server);
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });
  return { port, stored };
}

const mail: OutgoingMail = {
  to: 'dokter@rs-sehat.example',
  subject: 'Kode masuk',
  text: 'Kode Anda: 123456',
  html: '<p>Kode Anda: 123456</p>',
  messageId: '<m-1@simrs.test>',
  deliveryId: 'd-1',
  locale: 'id',
};

function mailerFor(port: number, timeoutMs: number, dataEndTimeoutMs: number) {
  return createMailer({ host: '127.0.0.1', port, tls: 'none', timeoutMs, dataEndTimeoutMs }, { address: 'no-reply@simrs.test' });
}

describe('SMTP time limits', () => {
  test('a relay slow to answer the final "." is waited for: one send, no retry, no duplicate', async () => {
    const peer = await relay({ dataEndMs: 1_200 });
    const started = Date.now();
    const result = await mailerFor(peer.port, 400, 5_000)(mail);
    assert.match(result.response, /^250/);
    assert.ok(Date.now() - started >= 1_200, 'waited for the answer');
    assert.equal(peer.stored.length, 1);
  });

  test('a relay slow before the body ends is given up on after SMTP_TIMEOUT_MS', async () => {
    const peer = await relay({ rcptMs: 3_000 });
    const started = Date.now();
    await assert.rejects(mailerFor(peer.port, 400, 5_000)(mail), /longer than 400 ms|abort/i);
    assert.ok(Date.now() - started < 2_500, 'did not wait for the slow RCPT answer');
    assert.equal(peer.stored.length, 0);
  });

  test('a relay silent after the final "." for longer than SMTP_DATA_END_TIMEOUT_MS is given up on', async () => {
    const peer = await relay({ dataEndMs: 3_000 });
    const started = Date.now();
    await assert.rejects(mailerFor(peer.port, 400, 800)(mail));
    assert.ok(Date.now() - started < 2_500, 'gave up at the data-end limit');
  });

  test('a shutdown still cuts a send short, at any step', async () => {
    const peer = await relay({ dataEndMs: 3_000 });
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('notifier shutting down')), 300);
    await assert.rejects(mailerFor(peer.port, 5_000, 10_000)(mail, stop.signal));
  });
});
