// With Redis behind Sentinels, a service told only the Secret's REDIS_URL would dial its placeholder
// host: every service that gets REDIS_URL must get the Sentinels and the master's name too.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { readYaml, render, repoRoot } from './support/helm.ts';

interface EnvVar {
  name: string;
  valueFrom?: { secretKeyRef?: unknown };
}
interface Workload {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  spec?: { template?: { spec?: { containers?: { env?: EnvVar[]; envFrom?: { configMapRef?: { name?: string } }[] }[] } } };
}

test('with Sentinels, every service that reaches Redis is given them and the master’s name', () => {
  const valuesFile = path.join(repoRoot, 'deploy/values-cloudnativepg.yaml');
  const { redisSentinels, redisMasterName } = readYaml(valuesFile).config as { redisSentinels: string[]; redisMasterName: string };
  const objects = render('simrs', 'simrs', ['-f', valuesFile]) as Workload[];
  const configMaps = new Map(objects.filter((o) => o.kind === 'ConfigMap').map((c) => [c.metadata.name, c.data ?? {}]));
  const reaching: string[] = [];
  for (const d of objects.filter((o) => o.kind === 'Deployment')) {
    const container = d.spec!.template!.spec!.containers![0]!;
    if (!(container.env ?? []).some((e) => e.name === 'REDIS_URL' && e.valueFrom?.secretKeyRef)) continue;
    const component = d.metadata.labels?.['app.kubernetes.io/component'] ?? d.metadata.name;
    reaching.push(component);
    const settings = Object.assign({}, ...(container.envFrom ?? []).map((f) => configMaps.get(f.configMapRef?.name ?? '') ?? {}));
    assert.equal(settings.REDIS_SENTINELS, redisSentinels.join(','), `${component}: REDIS_SENTINELS`);
    assert.equal(settings.REDIS_MASTER_NAME, redisMasterName, `${component}: REDIS_MASTER_NAME`);
  }
  assert.deepEqual(reaching.sort(), ['gateway', 'identity', 'records']);
});
