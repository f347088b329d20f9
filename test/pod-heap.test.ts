// The heap limit a compiled stack (the bench) gives each service, runtime.ts's podHeapOption, stands for
// the one the service has in its pod: the chart's memory limits must be the ones it is computed from.
// (test/images checks the other half: each image, in a container of that limit, has that heap limit.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POD_MEMORY_LIMIT_MIB } from '@simrs/platform/runtime';
import { render } from './support/helm.ts';

interface Deployment {
  kind: string;
  metadata?: { labels?: Record<string, string> };
  spec?: { template?: { spec?: { containers?: { resources?: { limits?: { memory?: string } } }[] } } };
}

const mebibytes = (quantity: string | undefined) => {
  const m = /^(\d+)(Mi|Gi)$/.exec(quantity ?? '');
  assert.ok(m, `a memory limit in Mi or Gi, not ${quantity}`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1);
};

test('each service’s memory limit in the chart is the one runtime.ts sizes its heap from', () => {
  const deployments = (render('simrs', 'simrs') as Deployment[]).filter((o) => o.kind === 'Deployment');
  const limits = Object.fromEntries(
    deployments.map((d) => [
      d.metadata?.labels?.['app.kubernetes.io/component'],
      mebibytes(d.spec?.template?.spec?.containers?.[0]?.resources?.limits?.memory),
    ]),
  );
  assert.deepEqual(limits, POD_MEMORY_LIMIT_MIB);
});
