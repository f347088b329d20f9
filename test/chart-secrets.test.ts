// Every secret a service's settings read reaches its pods from an existing Secret: a setting the chart
// forgot would leave the service on its fallback in Kubernetes (for records' SATUSEHAT seal key, one
// derived from PRINCIPAL_SECRET, so rotating that secret would make the hospitals' saved SATUSEHAT
// secrets unreadable). The owner role's URL goes to the migration Job only.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { render, repoRoot } from './support/helm.ts';

const SECRETISH = /(^|_)(SECRET|PASSWORD|TOKEN)$|^(DATABASE|MIGRATION_DATABASE|REDIS|SMTP)_URL$/;
const CONFIGS = {
  gateway: 'gateway/src/config.ts',
  identity: 'services/identity/src/config.ts',
  records: 'services/records/src/config.ts',
  notifier: 'services/notifier/src/config.ts',
};
const MIGRATION_ONLY = new Set(['MIGRATION_DATABASE_URL']);

/** The settings a service's config schema declares whose names say they are secrets. */
function secretSettings(file: string): string[] {
  const source = readFileSync(path.join(repoRoot, file), 'utf8');
  return [...source.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!).filter((name) => SECRETISH.test(name));
}

/** Names of the variables a workload takes from Secrets. */
function fromSecrets(workload: IDeployment | IJob): Set<string> {
  const names = new Set<string>();
  for (const c of workload.spec!.template.spec!.containers) for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) names.add(e.name);
  return names;
}

test("each service's secret settings come from Secrets; the owner role's URL only to the migration Job", () => {
  const objects = render('simrs', 'simrs');
  const workload = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name) as IDeployment | IJob;
  for (const [service, file] of Object.entries(CONFIGS)) {
    const settings = secretSettings(file);
    assert.ok(settings.length > 0, `${file}: no secret settings found`);
    const deployment = fromSecrets(workload('Deployment', `simrs-${service}`));
    const migration = service === 'gateway' ? new Set<string>() : fromSecrets(workload('Job', `simrs-${service}-migrate`));
    for (const name of settings) {
      if (MIGRATION_ONLY.has(name)) assert.ok(migration.has(name), `${service}'s migration Job lacks ${name}`);
      else assert.ok(deployment.has(name), `${service}'s Deployment does not get ${name} from a Secret`);
    }
  }
});
