// Every secret a service's settings read reaches its pods from an existing Secret: a setting the chart
// forgot would leave the service on its fallback in Kubernetes (for records' SATUSEHAT seal key, one
// derived from PRINCIPAL_SECRET, so rotating that secret would make the hospitals' saved SATUSEHAT
// secrets unreadable). The owner role's URL goes to the migration Job only; a setting with a fallback
// comes from an optional key, so that a pod starts where that Secret was never made.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { render, repoRoot, SECRET_SETTING } from './support/helm.ts';

const CONFIGS = {
  gateway: 'gateway/src/config.ts',
  identity: 'services/identity/src/config.ts',
  records: 'services/records/src/config.ts',
  notifier: 'services/notifier/src/config.ts',
};
const MIGRATION_ONLY = new Set(['MIGRATION_DATABASE_URL']);
/** Settings the services fall back from when unset (REDIS_KEY_SECRET to AUTH_SECRET, the seal key to one derived from PRINCIPAL_SECRET). */
const WITH_FALLBACK = new Set(['REDIS_KEY_SECRET', 'SATUSEHAT_SEAL_SECRET']);

/** The settings a service's config schema declares whose names say they are secrets. */
function secretSettings(file: string): string[] {
  const source = readFileSync(path.join(repoRoot, file), 'utf8');
  return [...source.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!).filter((name) => SECRET_SETTING.test(name));
}

/** The variables a workload takes from Secrets, each with whether its key is optional. */
function fromSecrets(workload: IDeployment | IJob): Map<string, boolean> {
  const names = new Map<string, boolean>();
  for (const c of workload.spec!.template.spec!.containers)
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) names.set(e.name, e.valueFrom.secretKeyRef.optional === true);
  return names;
}

test("each service's secret settings come from Secrets; the owner role's URL only to the migration Job", () => {
  const objects = render('simrs', 'simrs');
  const workload = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as IDeployment | IJob;
  for (const [service, file] of Object.entries(CONFIGS)) {
    const settings = secretSettings(file);
    assert.ok(settings.length > 0, `${file}: no secret settings found`);
    const deployment = fromSecrets(workload('Deployment', `simrs-${service}`));
    const migration = service === 'gateway' ? new Map<string, boolean>() : fromSecrets(workload('Job', `simrs-${service}-migrate`));
    for (const name of settings) {
      if (MIGRATION_ONLY.has(name)) {
        assert.ok(migration.has(name), `${service}'s migration Job lacks ${name}`);
        assert.ok(!deployment.has(name), `${service}'s Deployment gets ${name}`);
        continue;
      }
      assert.ok(deployment.has(name), `${service}'s Deployment does not get ${name} from a Secret`);
      assert.equal(deployment.get(name), WITH_FALLBACK.has(name), `${service}'s ${name}: optional only where the service has a fallback`);
    }
  }
});
