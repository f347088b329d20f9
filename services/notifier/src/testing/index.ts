// Test helpers for the notifier's integration tests (not used by the service): a real SMTP peer
// (smtp-server on a loopback port) whose answers depend on the recipient, and the notifier as a real
// child process with a gRPC client.
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import type { SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { freePort, startService, waitForReady } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { NotifierService } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { createClient } from '@simrs/proto/grpc';

export interface Received {
  messageId: string;
  deliveryId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * A real SMTP peer. How it answers depends on the recipient's local part:
 *   reject...@   550 at RCPT TO (permanent)
 *   spam...@     554 after DATA (permanent)
 *   tempfail-N...@  451 after DATA for the first N attempts of each Message-ID, then 250
 *   never...@    451 after DATA, always
 *   slow-MS...@  waits MS milliseconds before the 250
 *   anything else: 250
 * `received` holds every message answered with 250; `attempts` counts DATA per Message-ID.
 */
export function smtpPeer() {
  const received: Received[] = [];
  const attempts = new Map<string, number>();
  const rcptAttempts = new Map<string, number>();
  let server: SMTPServer | undefined;
  let port = 0;

  function create(): SMTPServer {
    return new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      banner: 'test peer',
      disableReverseLookup: true,
      onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
        rcptAttempts.set(address.address, (rcptAttempts.get(address.address) ?? 0) + 1);
        if (address.address.startsWith('reject')) return callback(smtpError(550, '5.1.1 <' + address.address + '>: no such user'));
        callback();
      },
      onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          void (async () => {
            const raw = Buffer.concat(chunks);
            const parsed = await PostalMime.parse(raw);
            const messageId = parsed.messageId ?? '';
            const n = (attempts.get(messageId) ?? 0) + 1;
            attempts.set(messageId, n);
            const to = (session.envelope.rcptTo[0]?.address ?? '').toLowerCase();
            const temp = /^tempfail-(\d+)/.exec(to);
            if (to.startsWith('spam')) return callback(smtpError(554, '5.7.1 message refused'));
            if (to.startsWith('never') || (temp && n <= Number(temp[1]))) return callback(smtpError(451, '4.3.0 try again later'));
            const slow = /^slow-(\d+)/.exec(to);
            if (slow) await new Promise((r) => setTimeout(r, Number(slow[1])));
            const headers: Record<string, string> = {};
            for (const h of parsed.headers) headers[h.key.toLowerCase()] = h.value;
            received.push({
              messageId,
              deliveryId: headers['x-simrs-delivery-id'] ?? '',
              from: parsed.from && 'address' in parsed.from ? (parsed.from.address ?? '') : '',
              to,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: parsed.html ?? '',
              headers,
            });
            callback();
          })().catch((err: unknown) => callback(err as Error));
        });
      },
    });
  }

  return {
    received,
    attempts,
    rcptAttempts,
    get port() {
      return port;
    },
    /** Listens on `at` (or a free port the first time, and the same port after a stop). */
    async start(at = port): Promise<number> {
      port = at || (await freePort());
      server = create();
      await new Promise<void>((resolve, reject) => {
        server!.server.once('error', reject);
        server!.listen(port, '127.0.0.1', () => resolve());
      });
      return port;
    },
    async stop(): Promise<void> {
      const s = server;
      server = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    /** Messages accepted per Message-ID. */
    counts(): Map<string, number> {
      const out = new Map<string, number>();
      for (const m of received) out.set(m.messageId, (out.get(m.messageId) ?? 0) + 1);
      return out;
    },
  };
}

export type SmtpPeer = ReturnType<typeof smtpPeer>;

export interface RunningNotifier {
  proc: ServiceProcess;
  client: ReturnType<typeof createClient<(typeof NotifierService)['method']>>;
  grpcPort: number;
  httpPort: number;
  http: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Test-sized timings: fast polls and retries, short leases. */
export const FAST = {
  MAIL_POLL_MS: '50',
  MAIL_RETRY_BASE_MS: '100',
  MAIL_RETRY_MAX_MS: '400',
  SMTP_TIMEOUT_MS: '1000',
  MAIL_LEASE_MS: '2000',
};

export async function startNotifier(name: string, env: Record<string, string>): Promise<RunningNotifier> {
  const grpcPort = await freePort();
  const httpPort = await freePort();
  const proc = startService(name, 'services/notifier', {
    HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    HTTP_PORT: String(httpPort),
    MAIL_FROM: 'RS Test <no-reply@simrs.example>',
    ...FAST,
    ...env,
  });
  const http = `http://127.0.0.1:${httpPort}`;
  try {
    await waitForReady(`${http}/readyz`, 30_000);
  } catch (err) {
    await proc.stop('SIGKILL');
    throw new Error(`${name} did not become ready:\n${proc.lines.join('\n')}`, { cause: err });
  }
  const client = createClient(NotifierService, `127.0.0.1:${grpcPort}`);
  return {
    proc,
    client,
    grpcPort,
    httpPort,
    http,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      client.close();
      return proc.stop(signal);
    },
  };
}
