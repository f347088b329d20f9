// The local stack's log stream: every line a process prints, as it happens, one line each with the
// process's name. On a terminal: time, name, level, message and the other fields as key=value, in
// colour. Otherwise (a pipe, a file, CI): one JSON object per line carrying `service`. Nothing is
// kept but a partial line (capped) and, per process, the last few lines for error messages.
import type { Readable } from 'node:stream';

export type Stream = 'stdout' | 'stderr';
export type LineSink = (source: string, line: string, stream: Stream) => void;

/** Longest line passed on whole; longer ones are cut (the rest follows as further lines). */
const MAX_LINE = 16 * 1024;

/** Calls `onLine` for each line of `stream`, holding at most MAX_LINE characters of a partial line. */
export function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    if (partial.length > MAX_LINE) {
      parts.push(`${partial.slice(0, MAX_LINE)}…`);
      partial = '';
    }
    for (const part of parts) {
      const line = part.replace(/\r$/, '');
      if (line) onLine(line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line);
    }
  });
  stream.on('end', () => {
    if (partial) onLine(partial);
    partial = '';
  });
}

/** The last `size` lines, for saying why something stopped. */
export class LastLines {
  readonly lines: string[] = [];
  readonly size: number;
  constructor(size = 50) {
    this.size = size;
  }
  push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.size) this.lines.shift();
  }
}

type Fields = Record<string, unknown> & { level?: unknown; time?: unknown; msg?: unknown; service?: unknown };

function parse(line: string): Fields | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : undefined;
  } catch {
    return undefined;
  }
}

/** The message of a log line, for one-line error reports: pino's msg (and err.message), or the text. */
export function messageOf(line: string): string {
  const fields = parse(line);
  if (!fields) return line;
  const err = fields.err as { message?: string } | undefined;
  return [fields.msg, err?.message].filter((s) => typeof s === 'string' && s).join(': ') || line;
}

const COLOURS = [36, 35, 32, 33, 34, 96, 95];
const LEVEL_COLOURS: Record<string, number> = { fatal: 31, error: 31, warn: 33, info: 32, debug: 90, trace: 90 };
const PINO_LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const OMIT = new Set(['level', 'time', 'service', 'msg', 'pid', 'hostname']);

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && 'message' in v) return JSON.stringify((v as { message: unknown }).message);
  return JSON.stringify(v) ?? String(v);
}

/** A LineSink writing to `out`: human-readable when `tty`, JSON lines otherwise. */
export function logPrinter(out: NodeJS.WritableStream, tty: boolean, names: readonly string[] = []): LineSink {
  const width = Math.max(8, ...names.map((n) => n.length));
  const colourOf = new Map<string, number>();
  const paint = (code: number, text: string) => (tty ? `\x1b[${code}m${text}\x1b[0m` : text);
  return (source, line, stream) => {
    const fields = parse(line);
    if (!tty) {
      if (fields && typeof fields.service === 'string') out.write(`${line}\n`);
      else if (fields) out.write(`${JSON.stringify({ service: source, ...fields })}\n`);
      else
        out.write(
          `${JSON.stringify({ time: new Date().toISOString(), service: source, level: stream === 'stderr' ? 'error' : 'info', msg: line })}\n`,
        );
      return;
    }
    if (!colourOf.has(source)) colourOf.set(source, COLOURS[colourOf.size % COLOURS.length]!);
    const time =
      typeof fields?.time === 'string' ? new Date(fields.time) : typeof fields?.time === 'number' ? new Date(fields.time) : new Date();
    const clock = Number.isNaN(time.getTime()) ? '' : time.toTimeString().slice(0, 8);
    const name = paint(colourOf.get(source)!, source.padEnd(width));
    if (!fields) {
      out.write(`${paint(90, clock)} ${name} ${stream === 'stderr' ? paint(31, line) : line}\n`);
      return;
    }
    const level = typeof fields.level === 'number' ? (PINO_LEVELS[fields.level] ?? String(fields.level)) : String(fields.level ?? 'info');
    const extras = Object.entries(fields)
      .filter(([k, v]) => !OMIT.has(k) && v !== undefined && v !== null)
      .map(([k, v]) => `${paint(90, `${k}=`)}${value(v)}`)
      .join(' ');
    out.write(
      `${paint(90, clock)} ${name} ${paint(LEVEL_COLOURS[level] ?? 0, level.padEnd(5))} ${String(fields.msg ?? '')}${extras ? ` ${extras}` : ''}\n`,
    );
  };
}
