// freePort() across processes: node --test runs test files in parallel processes, and each of them
// starts services on ports it asked for, so no two callers on the machine may get the same port.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort, portLockDir, portWindow, reservePort } from './ports.ts';

const portsModule = fileURLToPath(new URL('./ports.ts', import.meta.url));

/**
 * Runs `body` in a fresh node process that has imported ports.ts as `t`; resolves with what it
 * printed as JSON. With `holdUntilReleased`, the child prints and then keeps its reservations until
 * release() is called (it exits when its stdin closes).
 */
function inChild(body: string) {
  const script = `const t = await import(${JSON.stringify(portsModule)}); const result = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify(result) + '\\n'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  const printed = new Promise<unknown>((resolvePrinted, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.endsWith('\n')) resolvePrinted(JSON.parse(out));
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before printing`)));
  });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  return {
    printed,
    async release() {
      child.stdin.end();
      await exited;
    },
  };
}

test('processes reserving many ports at once never get the same port', async () => {
  const children = Array.from({ length: 6 }, () => inChild('return Promise.all(Array.from({ length: 60 }, () => t.freePort()));'));
  const ours = await Promise.all(Array.from({ length: 60 }, () => freePort()));
  try {
    const all = [...ours, ...(await Promise.all(children.map((c) => c.printed))).flat()] as number[];
    assert.equal(all.length, 7 * 60);
    const seen = new Map<number, number>();
    for (const port of all) seen.set(port, (seen.get(port) ?? 0) + 1);
    assert.deepEqual(
      [...seen].filter(([, n]) => n > 1),
      [],
      'ports handed out twice',
    );
    const [from, to] = portWindow();
    for (const port of all) assert.ok(port >= from && port <= to, `${port} outside ${from}-${to}`);
  } finally {
    await Promise.all(children.map((c) => c.release()));
  }
});

test('the window lies outside the ephemeral range the kernel picks port-0 binds from', () => {
  const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];
  const [from, to] = portWindow();
  assert.ok(to < low || from > high, `${from}-${to} overlaps ${low}-${high}`);
});

test('a reservation holds while its owner lives, is released when it exits, and is reclaimed when stale', async () => {
  const port = await freePort();
  const lock = join(portLockDir, `${port}.lock`);
  assert.match(readFileSync(lock, 'utf8'), new RegExp(`^pid ${process.pid}\\n`));
  const tryFromChild = async () => {
    const child = inChild(`return t.reservePort(${port});`);
    const got = await child.printed;
    await child.release();
    return got;
  };
  assert.equal(await tryFromChild(), false, 'held by a live process');
  assert.equal(await reservePort(port), false, 'already ours');

  writeFileSync(lock, 'pid 999999999\n');
  assert.equal(await tryFromChild(), true, 'the owner is gone');

  // The child exited, so its reservation went with it; one of a live pid that is hours old is stale too.
  assert.throws(() => readFileSync(lock), { code: 'ENOENT' });
  writeFileSync(lock, `pid ${process.pid}\n`);
  const hoursAgo = new Date(Date.now() - 3 * 3_600_000);
  utimesSync(lock, hoursAgo, hoursAgo);
  assert.equal(await tryFromChild(), true, 'too old');
});

test('a port something listens on is not handed out', async () => {
  const { createServer } = await import('node:net');
  const { existsSync } = await import('node:fs');
  const server = createServer();
  const [from, to] = portWindow();
  // A port in the window that nobody has reserved, taken by a plain listener.
  const busy = await new Promise<number>((resolveListen, reject) => {
    const tryPort = (port: number): void => {
      if (port > to) return reject(new Error('no port to listen on'));
      if (existsSync(join(portLockDir, `${port}.lock`))) return tryPort(port + 1);
      server.removeAllListeners('error').once('error', () => tryPort(port + 1));
      server.listen(port, '127.0.0.1', () => resolveListen(port));
    };
    tryPort(from + Math.floor(Math.random() * (to - from)));
  });
  try {
    assert.equal(await reservePort(busy), false);
    assert.equal(existsSync(join(portLockDir, `${busy}.lock`)), false, 'no reservation left behind');
  } finally {
    await new Promise((r) => server.close(r));
  }
});
