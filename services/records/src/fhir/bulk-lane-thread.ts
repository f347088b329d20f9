// A worker thread that writes one lane of an export job (bulk-lane.ts), with a small pool of its own:
// one connection reads the next page while the other commits the last. It answers its LaneResult and
// ends; a message from the main thread asks it to stop after the page in hand.
import { parentPort, workerData } from 'node:worker_threads';
import { createAppPool, isUnavailable, tenantDb } from '../db/index.ts';
import { writeLaneOfJob } from './bulk-lane.ts';
import type { LaneResult, LaneTask } from './bulk-lane.ts';

export interface LaneThreadData {
  task: LaneTask;
  databaseUrl: string;
  statementTimeoutMs: number;
}

const { task, databaseUrl, statementTimeoutMs } = workerData as LaneThreadData;
const port = parentPort!;
let stopping = false;
port.on('message', () => (stopping = true));

const pool = createAppPool(databaseUrl, { max: 2, statementTimeoutMs });
let result: LaneResult;
try {
  result = { complete: await writeLaneOfJob(tenantDb(pool, task.tenantId), task, () => stopping) };
} catch (err) {
  result = { error: err instanceof Error ? (err.stack ?? err.message) : String(err), unavailable: isUnavailable(err) };
}
await pool.end().catch(() => {});
port.postMessage(result);
port.close();
