// `npm run mail [-- N] [-- --to ADDRESS]`: prints the latest N (default 5) messages the development
// mail catcher (scripts/mailcatcher.ts, started by `npm start`) received, oldest first so that the
// newest ends up right above the prompt: date, recipient, subject and the plain-text body (where the
// sign-in code and the magic link are). Reads MAILCATCHER_DIR (default <repo>/.data/mail).
//
// The message store helpers below are shared with the mail catcher.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import PostalMime from 'postal-mime';

export interface StoredMessage {
  id: string;
  date: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
}

export function mailDir(): string {
  return process.env.MAILCATCHER_DIR || resolve(dirname(fileURLToPath(import.meta.url)), '..', '.data', 'mail');
}

/** Names sort by arrival time: a UTC timestamp, then random bytes against collisions. */
export async function saveMessage(dir: string, raw: Buffer): Promise<string> {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('.', '');
  const name = `${stamp}-${randomBytes(3).toString('hex')}.eml`;
  const tmp = join(dir, `.${name}.tmp`);
  await writeFile(tmp, raw);
  // Readers never see a half-written message.
  await rename(tmp, join(dir, name));
  return name;
}

async function messageFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((f) => f.endsWith('.eml')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Keeps the newest `keep` messages. */
export async function trimMessages(dir: string, keep: number): Promise<void> {
  const files = await messageFiles(dir);
  await Promise.all(files.slice(0, Math.max(0, files.length - keep)).map((f) => unlink(join(dir, f)).catch(() => {})));
}

function addresses(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((a: { address?: string; group?: unknown }) => (a.group ? addresses(a.group) : a.address ? [a.address] : []));
}

export async function readMessage(dir: string, file: string): Promise<StoredMessage> {
  const email = await PostalMime.parse(await readFile(join(dir, file)));
  return {
    id: file.replace(/\.eml$/, ''),
    date: email.date ?? '',
    from: email.from && 'address' in email.from ? (email.from.address ?? '') : '',
    to: addresses(email.to),
    subject: email.subject ?? '',
    text: (email.text ?? '').trim(),
  };
}

/** The newest messages first, optionally only those to one address. */
export async function listMessages(dir: string, options: { limit: number; to?: string }): Promise<StoredMessage[]> {
  const files = (await messageFiles(dir)).reverse();
  const out: StoredMessage[] = [];
  for (const file of files) {
    if (out.length >= options.limit) break;
    const message = await readMessage(dir, file).catch(() => undefined);
    if (!message) continue;
    if (options.to && !message.to.some((a) => a.toLowerCase() === options.to)) continue;
    out.push(message);
  }
  return out;
}

function usage(): never {
  console.error('usage: npm run mail [-- COUNT] [-- --to ADDRESS]');
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  let count = 5;
  let to: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--to') to = argv[++i]?.toLowerCase() ?? usage();
    else if (arg === '-h' || arg === '--help') usage();
    else if (/^\d+$/.test(arg) && Number(arg) > 0) count = Number(arg);
    else usage();
  }
  const dir = mailDir();
  const messages = await listMessages(dir, { limit: count, to });
  if (messages.length === 0) {
    console.log(`No mail${to ? ` to ${to}` : ''} in ${dir} yet. Is \`npm start\` running (it starts the mail catcher)?`);
    return;
  }
  const rule = '='.repeat(72);
  for (const m of messages.reverse()) {
    console.log(rule);
    console.log(`Date:    ${m.date}`);
    console.log(`To:      ${m.to.join(', ')}`);
    console.log(`Subject: ${m.subject}`);
    console.log('');
    console.log(m.text);
  }
  console.log(rule);
  console.log(`${messages.length} message(s), newest last, from ${dir}`);
}

if (import.meta.main) await main(process.argv.slice(2));
