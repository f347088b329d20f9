// npm start's reaper: stops the programs npm start started that are not node services (redis-server, the
// embedded Postgres) when npm start dies without stopping them itself (SIGKILL, a crash). Those programs
// cannot notice that their parent is gone, and Linux's parent-death signal is not reachable from node,
// so this process holds an IPC channel to npm start and acts when it closes. The services and the mail
// catcher watch their own channel (packages/platform/src/lifecycle.ts, scripts/mailcatcher.ts).
//
// Messages: { watch: pid, signal } (stop `pid` with `signal` if npm start dies), { done: true } (npm start
// stopped them itself; forget them). It runs in a process group of its own, so that a signal to npm
// start's group does not take it down before npm start is gone.
const STOP_WITHIN_MS = 5_000;
const watched = new Map<number, NodeJS.Signals>();

function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // gone already
  }
}

process.on('message', (raw: unknown) => {
  const message = raw as { watch?: number; signal?: NodeJS.Signals; done?: boolean };
  if (message.done) watched.clear();
  else if (message.watch) watched.set(message.watch, message.signal ?? 'SIGTERM');
});

process.once('disconnect', () => {
  void (async () => {
    for (const [pid, sig] of watched) signal(pid, sig);
    const deadline = Date.now() + STOP_WITHIN_MS;
    while ([...watched.keys()].some((pid) => signal(pid, 0)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    for (const pid of watched.keys()) signal(pid, 'SIGKILL');
    process.exit(0);
  })();
});

// npm start may have died before this process listened; nothing else keeps it alive.
if (!process.connected) process.exit(0);
