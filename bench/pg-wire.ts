// What a service sends to Postgres, read off the wire: a TCP relay on loopback that a service's
// DATABASE_URL points at instead of the server, passing every byte through unchanged and reading the
// client's side of the protocol as it goes (Parse gives a prepared statement's text, Bind its values, a
// simple Query its text). So the bench learns a service's statements by running the service, not by
// importing its code.
import { connect, createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

export interface Statement {
  text: string;
  /** The bound values as Postgres received them (text format), null for SQL NULL. */
  values: Array<string | null>;
}

/** The protocol version a StartupMessage carries in its upper half (3.x); SSL and GSS requests differ. */
const PROTOCOL_3 = 3;

/** Reads one client connection's messages: statement texts by name, each Bind or Query as it comes. */
class ClientReader {
  #buffer: Buffer = Buffer.alloc(0);
  #started = false;
  readonly #prepared = new Map<string, string>();
  readonly #onStatement: (statement: Statement) => void;

  constructor(onStatement: (statement: Statement) => void) {
    this.#onStatement = onStatement;
  }

  push(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      // Before the StartupMessage (and in an SSLRequest ahead of it) messages have no type byte.
      const header = this.#started ? 5 : 8;
      if (this.#buffer.length < header) return;
      const length = this.#started ? this.#buffer.readInt32BE(1) + 1 : this.#buffer.readInt32BE(0);
      if (this.#buffer.length < length) return;
      const message = this.#buffer.subarray(0, length);
      this.#buffer = this.#buffer.subarray(length);
      if (!this.#started) this.#started = message.readInt32BE(4) >>> 16 === PROTOCOL_3;
      else this.#read(String.fromCharCode(message[0]!), message.subarray(5));
    }
  }

  #read(type: string, body: Buffer): void {
    let at = 0;
    const text = () => {
      const end = body.indexOf(0, at);
      const value = body.toString('utf8', at, end);
      at = end + 1;
      return value;
    };
    if (type === 'Q') this.#onStatement({ text: text(), values: [] });
    if (type === 'P') {
      const name = text();
      this.#prepared.set(name, text());
    }
    if (type !== 'B') return;
    text(); // the portal
    const statement = this.#prepared.get(text()) ?? '';
    const formats = body.readInt16BE(at);
    const binary = Array.from({ length: formats }, (_, i) => body.readInt16BE(at + 2 + 2 * i) === 1);
    at += 2 + 2 * formats;
    const values: Array<string | null> = [];
    const count = body.readInt16BE(at);
    at += 2;
    for (let i = 0; i < count; i++) {
      const length = body.readInt32BE(at);
      at += 4;
      if (binary[formats === 1 ? 0 : i]) throw new Error(`a binary parameter in: ${statement}`);
      values.push(length < 0 ? null : body.toString('utf8', at, at + length));
      at += Math.max(length, 0);
    }
    this.#onStatement({ text: statement, values });
  }
}

export interface WireTap {
  /** `url` (a Postgres URL) pointed at the relay instead of the server. */
  through(url: string): string;
  /** Every statement sent since the last call (in order, all connections together). */
  take(): Statement[];
  close(): Promise<void>;
}

/** Starts a relay to the Postgres server of `serverUrl` on a loopback port. */
export async function startWireTap(serverUrl: string): Promise<WireTap> {
  const server = new URL(serverUrl);
  let seen: Statement[] = [];
  let unreadable: Error | undefined;
  const sockets = new Set<Socket>();
  const relay: Server = createServer((client) => {
    const upstream = connect(Number(server.port || 5432), server.hostname);
    const reader = new ClientReader((s) => seen.push(s));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.once('error', () => (client.destroy(), upstream.destroy()));
    }
    client.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch (err) {
        unreadable ??= err as Error;
      }
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as { port: number };
  return {
    through(url) {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.toString();
    },
    take() {
      if (unreadable) throw unreadable;
      const taken = seen;
      seen = [];
      return taken;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
    },
  };
}
