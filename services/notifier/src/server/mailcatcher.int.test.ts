// The local stack's mail path end to end: the notifier (real process) sends a sign-in code to the
// development mail catcher (scripts/mailcatcher.ts, real process), whose page and `npm run mail`
// (scripts/mail.ts) show it.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { repoRoot, throwawayDatabase, waitFor } from '@simrs/platform/testing';
import { Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { startNotifier } from '../testing/index.ts';
import type { RunningNotifier } from '../testing/index.ts';

describe('development mail catcher', { timeout: 60_000 }, () => {
  let dir: string;
  let catcher: ChildProcess;
  let smtpPort = 0;
  let httpPort = 0;
  let db: Awaited<ReturnType<typeof throwawayDatabase>>;
  let notifier: RunningNotifier;
  const output: string[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailcatcher-'));
    catcher = spawn(process.execPath, ['scripts/mailcatcher.ts'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, MAILCATCHER_SMTP_PORT: '0', MAILCATCHER_HTTP_PORT: '0', MAILCATCHER_DIR: dir, MAILCATCHER_KEEP: '3' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    catcher.stdout!.on('data', (c: Buffer) => output.push(...c.toString().split('\n').filter(Boolean)));
    catcher.stderr!.on('data', (c: Buffer) => output.push(...c.toString().split('\n').filter(Boolean)));
    const ready = await waitFor('the mailcatcher line', async () => {
      for (const line of output) {
        const m = /^mailcatcher smtp=(\d+) http=(\d+)$/.exec(line);
        if (m) return m;
      }
      return undefined;
    });
    smtpPort = Number(ready[1]);
    httpPort = Number(ready[2]);
    db = await throwawayDatabase('notifier_mail');
    // No SMTP_TLS: a loopback SMTP_URL means plain SMTP, which is what the launcher relies on.
    notifier = await startNotifier('notifier-dev', { DATABASE_URL: db.url, SMTP_URL: `smtp://127.0.0.1:${smtpPort}` });
  });

  after(async () => {
    await notifier?.stop();
    if (catcher && catcher.exitCode === null) catcher.kill('SIGKILL');
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('an OTP sent by the notifier shows on the page, in the JSON list and in `npm run mail`', async () => {
    await notifier.client.sendEmail({
      idempotencyKey: 'dev-otp',
      recipient: 'newcomer@rs-dev.example',
      template: Template.SIGN_IN_OTP,
      locale: 'id',
      parameters: { otp: '246810', tenant_name: 'RS Pengembangan' },
    });
    const api = `http://127.0.0.1:${httpPort}/api/messages?to=newcomer@rs-dev.example`;
    const [message] = await waitFor('the mail at the catcher', async () => {
      const list = (await (await fetch(api)).json()) as { subject: string; text: string; to: string[] }[];
      return list.length ? list : undefined;
    });
    assert.equal(message!.subject, 'Kode masuk RS Pengembangan Anda');
    assert.deepEqual(message!.to, ['newcomer@rs-dev.example']);
    assert.ok(message!.text.includes('246810'));

    const page = await (await fetch(`http://127.0.0.1:${httpPort}/`)).text();
    assert.ok(page.includes('Kode masuk RS Pengembangan Anda') && page.includes('246810') && page.includes('newcomer@rs-dev.example'));

    const cli = spawnSync(process.execPath, ['scripts/mail.ts', '1'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, MAILCATCHER_DIR: dir },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /^To: {6}newcomer@rs-dev\.example$/m);
    assert.match(cli.stdout, /^Subject: Kode masuk RS Pengembangan Anda$/m);
    assert.match(cli.stdout, /^ {4}246810$/m);
  });

  test('links are clickable on the page, and only the latest messages are kept', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true });
    for (let i = 0; i < 4; i++) {
      await transport.sendMail({
        from: 'a@simrs.example',
        to: `n${i}@rs-dev.example`,
        subject: `message ${i}`,
        text: `open https://simrs.example/verify?token=t${i}&x=1 <script>alert(1)</script>`,
      });
    }
    const files = (await readdir(dir)).filter((f) => f.endsWith('.eml'));
    assert.equal(files.length, 3);
    const page = await (await fetch(`http://127.0.0.1:${httpPort}/`)).text();
    assert.ok(!page.includes('message 0') && page.includes('message 3'));
    assert.ok(page.includes('<a href="https://simrs.example/verify?token=t3&amp;x=1"'), 'link');
    assert.ok(!page.includes('<script>') && page.includes('&lt;script&gt;'), 'message text is escaped');

    const cli = spawnSync(process.execPath, ['scripts/mail.ts'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, MAILCATCHER_DIR: dir },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(cli.status, 0, cli.stderr);
    // Newest last.
    assert.ok(cli.stdout.indexOf('Subject: message 2') < cli.stdout.indexOf('Subject: message 3'));
    assert.match(cli.stdout, /3 message\(s\), newest last/);
  });

  test('SIGTERM stops it cleanly', async () => {
    const exited = new Promise<number | null>((r) => catcher.once('exit', (code) => r(code)));
    catcher.kill('SIGTERM');
    assert.equal(await exited, 0, output.join('\n'));
  });
});
