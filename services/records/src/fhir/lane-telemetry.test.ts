// records' preload (src/instrumentation.ts) runs in every worker thread started from a file, as the
// export's lanes are: the telemetry it starts must be the main thread's alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PRELOAD = fileURLToPath(new URL('../instrumentation.ts', import.meta.url));
// Where @opentelemetry/api keeps the providers an SDK registers (its global, by API major version).
const OTEL_GLOBAL = "Symbol.for('opentelemetry.js.api.1')";

test('a worker thread of records (an export lane) starts no telemetry of its own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'records-preload-'));
  try {
    const worker = join(dir, 'worker.mjs');
    writeFileSync(worker, `import { parentPort } from 'node:worker_threads';\nparentPort.postMessage(${OTEL_GLOBAL} in globalThis);\n`);
    const main = `import { Worker } from 'node:worker_threads';
      const inWorker = await new Promise((resolve, reject) => new Worker(${JSON.stringify(worker)}).once('message', resolve).once('error', reject));
      console.log(JSON.stringify({ main: ${OTEL_GLOBAL} in globalThis, worker: inWorker }));
      process.exit(0);`;
    // A file, not -e: a worker inherits the parent's flags, and --input-type would refuse its file.
    writeFileSync(join(dir, 'main.mjs'), main);
    const child = spawnSync(process.execPath, ['--import', PRELOAD, join(dir, 'main.mjs')], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
    });
    assert.equal(child.status, 0, child.stderr);
    const seen = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { main: boolean; worker: boolean };
    assert.deepEqual(seen, { main: true, worker: false }, 'the main thread has the telemetry, the worker none');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
