// A TCP relay on loopback in front of a real server (Postgres here), for tests of what a service does
// when its database goes away: a failover or a restart as a pool sees it. It can cut every open
// connection, refuse the next few, or stay down (cut all, refuse every new one) until brought up.
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { freePort } from './ports.ts';

export interface Relay {
  /** The target's URL with host and port replaced by the relay's. */
  url: string;
  /** Connections the relay has accepted, refused ones included. */
  connections: number;
  /** Closes the next `count` connections as soon as they are accepted. */
  refuseNext(count: number): void;
  /** Closes every open connection; new ones are relayed as before. */
  cutAll(): void;
  /** Closes every open connection and refuses new ones until up(). */
  down(): void;
  up(): void;
  stop(): Promise<void>;
}

export async function startRelay(target: string | URL): Promise<Relay> {
  const to = new URL(target);
  const sockets = new Set<Socket>();
  let refusals = 0;
  let isDown = false;
  const relay = { connections: 0 } as Relay;
  const server: Server = createServer((client) => {
    relay.connections++;
    if (isDown || refusals > 0) {
      if (!isDown) refusals--;
      client.destroy();
      return;
    }
    const upstream = connect(Number(to.port || 5432), to.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => (client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = new URL(to);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const cutAll = () => sockets.forEach((s) => s.destroy());
  return Object.assign(relay, {
    url: url.toString(),
    refuseNext: (count: number) => void (refusals = count),
    cutAll,
    down: () => ((isDown = true), cutAll()),
    up: () => void (isDown = false),
    stop: () => new Promise<void>((resolve) => (cutAll(), server.close(() => resolve()))),
  });
}
