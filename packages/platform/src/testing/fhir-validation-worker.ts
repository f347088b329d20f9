// A worker of fhir-validation-pool.ts: validates each batch of lines, answers with the first failure.
import { parentPort } from 'node:worker_threads';
import { assertValidFhir } from './fhir-validation.ts';

parentPort!.on('message', (batch: { line: string; what: string }[]) => {
  let failure: string | undefined;
  for (const { line, what } of batch) {
    try {
      assertValidFhir(JSON.parse(line), what);
    } catch (err) {
      failure = (err as Error).message;
      break;
    }
  }
  parentPort!.postMessage({ failure });
});
