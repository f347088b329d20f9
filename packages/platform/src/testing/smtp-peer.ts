// A real SMTP peer for tests (smtp-server), keeping every message it accepts, parsed with postal-mime.
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './index.ts';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  /** When the peer stored it, just before answering 250 (ms since the epoch). */
  receivedAt: number;
}

export interface SmtpPeer {
  url: string;
  messages: ReceivedMail[];
  /** The first message to `address` (after `since` messages, matching `accept`), once it has arrived. */
  waitForMail(address: string, since?: number, accept?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Every message to `address` so far. */
  to(address: string): ReceivedMail[];
  stop(): Promise<void>;
}

export async function startSmtpPeer(): Promise<SmtpPeer> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        void PostalMime.parse(Buffer.concat(chunks)).then((mail) => {
          messages.push({
            to: (mail.to ?? []).map((a) => a.address ?? '').filter(Boolean),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            html: mail.html ?? '',
            headers: Object.fromEntries(mail.headers.map((h) => [h.key, h.value])),
            receivedAt: Date.now(),
          });
          callback();
        }, callback);
      });
    },
  });
  // A client that vanishes mid-conversation (a notifier killed by a fault test) makes the server's next
  // write fail with EPIPE or ECONNRESET; that is the client's end of the story, not the peer's, and
  // without a listener it would surface as an uncaught exception in the test process.
  server.on('error', () => {});
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.server.address() as { port: number }).port));
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMail(address, since = 0, accept = () => true, timeoutMs = 15_000) {
      return waitFor(`mail to ${address}`, async () => messages.slice(since).find((m) => m.to.includes(address) && accept(m)), timeoutMs);
    },
    to: (address) => messages.filter((m) => m.to.includes(address)),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
