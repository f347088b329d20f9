// Span-tree helpers over what the OTLP receiver collected.
import { waitFor } from '@simrs/platform/testing';
import type { ReceivedSpan } from './otlp.ts';

export const SERVER = 2;
export const CLIENT = 3;

/** A database client span of `system` (stable semconv `db.system.name`, or the old `db.system`). */
export const isDb = (s: ReceivedSpan, system: 'postgresql' | 'redis') =>
  (s.attributes['db.system.name'] ?? s.attributes['db.system']) === system;

export class Trace {
  readonly spans: ReceivedSpan[];
  constructor(spans: ReceivedSpan[]) {
    this.spans = spans;
  }
  get root(): ReceivedSpan | undefined {
    return this.spans.find((s) => s.parentSpanId === '');
  }
  byId(id: string): ReceivedSpan | undefined {
    return this.spans.find((s) => s.spanId === id);
  }
  /** The chain of parents of a span, nearest first. */
  ancestors(span: ReceivedSpan): ReceivedSpan[] {
    const out: ReceivedSpan[] = [];
    let parent = this.byId(span.parentSpanId);
    while (parent) {
      out.push(parent);
      parent = this.byId(parent.parentSpanId);
    }
    return out;
  }
  /** The nearest server span above a span (its own service's or a caller's). */
  serverAbove(span: ReceivedSpan): ReceivedSpan | undefined {
    return this.ancestors(span).find((s) => s.kind === SERVER);
  }
  find(predicate: (s: ReceivedSpan) => boolean): ReceivedSpan | undefined {
    return this.spans.find(predicate);
  }
  /** Spans whose parent is not in the trace (besides the root): broken links. */
  orphans(): ReceivedSpan[] {
    const ids = new Set(this.spans.map((s) => s.spanId));
    return this.spans.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId));
  }
}

/**
 * The trace of the newest gateway root span named `name`, once `complete` says every span it
 * expects has arrived (exports are batched per service, so they come in pieces).
 */
export async function traceOf(
  spans: ReceivedSpan[],
  name: string,
  complete: (t: Trace) => boolean,
  since = 0,
  timeoutMs = 15_000,
): Promise<Trace> {
  let last: Trace | undefined;
  try {
    return await waitFor(
      `the trace of ${name}`,
      async () => {
        const root = spans
          .slice(since)
          .filter((s) => s.service === 'gateway' && s.kind === SERVER && s.parentSpanId === '' && s.name === name)
          .at(-1);
        if (!root) return undefined;
        last = new Trace(spans.filter((s) => s.traceId === root.traceId));
        return complete(last) ? last : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    const seen = (last?.spans ?? spans.slice(since)).map((s) => `${s.service} ${s.kind} ${s.name}`).join('\n  ');
    throw new Error(`${(err as Error).message}; spans seen:\n  ${seen}`, { cause: err });
  }
}
