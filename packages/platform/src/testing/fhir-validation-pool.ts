// Validates many FHIR resources (a Bulk Data export's NDJSON lines) on worker threads, with
// fhir-validation.ts's checks (the declared profiles once per structure: the worker says why):
// validating is far slower than producing the lines, so a large export's test would otherwise be
// bound by one core. Lines go to the workers as text, in batches; a caller that
// adds faster than they validate waits, so memory stays bounded by the batches in flight.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

const BATCH = 500;
/** Batches in flight per worker before `add` waits. */
const QUEUE_PER_WORKER = 4;

export interface ValidationPool {
  /** Queues one resource's JSON text, labelled `what` in a failure; resolves once there is room for more. */
  add(line: string, what: string): Promise<void>;
  /** Waits for every queued line, stops the workers, and throws the first invalid line's issues. */
  finish(): Promise<void>;
}

interface Answer {
  failure?: string;
}

export function fhirValidationPool(threads = Math.max(1, availableParallelism())): ValidationPool {
  // The worker beside this module: its TypeScript source, or its build when this is the build.
  const script = new URL(`./fhir-validation-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);
  const workers = Array.from({ length: threads }, () => new Worker(script));
  const inFlight = new Map<Worker, number>(workers.map((w) => [w, 0]));
  let failure: string | undefined;
  let batch: { line: string; what: string }[] = [];
  let wake: (() => void) | undefined;
  let crashed: Error | undefined;

  for (const worker of workers) {
    worker.on('message', (answer: Answer) => {
      inFlight.set(worker, inFlight.get(worker)! - 1);
      failure ??= answer.failure;
      wake?.();
    });
    worker.on('error', (err) => {
      crashed ??= err;
      wake?.();
    });
  }

  const leastBusy = () => workers.reduce((a, b) => (inFlight.get(b)! < inFlight.get(a)! ? b : a));
  const pending = () => [...inFlight.values()].reduce((a, b) => a + b, 0);
  const waitFor = async (ready: () => boolean) => {
    while (!ready() && !crashed) await new Promise<void>((resolve) => (wake = resolve));
    if (crashed) throw crashed;
  };

  const send = async () => {
    if (batch.length === 0) return;
    await waitFor(() => inFlight.get(leastBusy())! < QUEUE_PER_WORKER);
    const worker = leastBusy();
    inFlight.set(worker, inFlight.get(worker)! + 1);
    worker.postMessage(batch);
    batch = [];
  };

  return {
    async add(line, what) {
      batch.push({ line, what });
      if (batch.length >= BATCH) await send();
    },
    async finish() {
      try {
        await send();
        await waitFor(() => pending() === 0);
      } finally {
        await Promise.all(workers.map((w) => w.terminate()));
      }
      if (failure) throw new Error(failure);
    },
  };
}
