// The chart's backup CronJob (values: backup), with the real helm: `helm lint --strict` with an S3 and
// a volume repository, the restricted securityContext of the services, an encrypted and compressed
// repository whose passphrase and keys come from existing Secrets, an egress rule of its own, and a
// clear refusal when the values cannot work.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ICronJob } from 'kubernetes-models/batch/v1/CronJob';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { chartDir, kubeVersion, render, runHelm } from './support/helm.ts';
import type { K8sObject } from './support/helm.ts';

const sets = (assignments: string[]) => assignments.flatMap((a) => ['--set', a]);
const S3_VALUES = [
  'backup.enabled=true',
  'backup.postgres.host=pg-0.db.internal',
  'backup.repository.s3.endpoint=s3.example.org',
  'backup.repository.s3.bucket=simrs-backups',
  'backup.repository.s3.region=id-jkt-1',
];
const VOLUME_VALUES = [
  'backup.enabled=true',
  'backup.postgres.host=pg-0.db.internal',
  'backup.repository.type=volume',
  'backup.repository.volume.claimName=simrs-backups',
];
const S3 = sets(S3_VALUES);
const VOLUME = sets(VOLUME_VALUES);

const ofKind = <T>(objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind) as unknown as T[];

test('helm lint --strict passes with backups to an S3 repository and to a volume', () => {
  for (const args of [S3, VOLUME]) {
    const { status, output } = runHelm(['lint', '--strict', chartDir, '--kube-version', kubeVersion, ...args]);
    assert.equal(status, 0, output);
    assert.match(output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  }
});

test('no CronJob unless backups are enabled', () => {
  assert.deepEqual(ofKind(render('simrs', 'simrs', ['--kube-version', kubeVersion]), 'CronJob'), []);
});

test('the backup CronJob runs restricted, encrypts and compresses, and reads its secrets from existing Secrets', () => {
  for (const args of [S3, VOLUME]) {
    const objects = render('simrs', 'simrs', ['--kube-version', kubeVersion, ...args]);
    const [cron] = ofKind<ICronJob>(objects, 'CronJob');
    assert.ok(cron, 'a CronJob');
    assert.equal(cron.spec.concurrencyPolicy, 'Forbid');
    const pod = cron.spec.jobTemplate.spec!.template.spec!;
    const service = ofKind<IDeployment>(objects, 'Deployment')[0]!.spec!.template.spec!;
    assert.deepEqual(pod.securityContext, service.securityContext, "the services' restricted pod securityContext");
    assert.equal(pod.automountServiceAccountToken, false);
    const container = pod.containers[0]!;
    assert.deepEqual(container.securityContext, service.containers[0]!.securityContext);
    assert.equal(container.securityContext?.readOnlyRootFilesystem, true);
    assert.deepEqual(container.securityContext?.capabilities, { drop: ['ALL'] });
    const env = new Map((container.env ?? []).map((e) => [e.name, e]));
    assert.equal(env.get('PGBACKREST_REPO1_CIPHER_TYPE')?.value, 'aes-256-cbc');
    assert.equal(env.get('PGBACKREST_COMPRESS_TYPE')?.value, 'zst');
    assert.equal(env.get('PGBACKREST_PG1_HOST_TYPE')?.value, 'tls');
    assert.ok(env.get('PGBACKREST_REPO1_CIPHER_PASS')?.valueFrom?.secretKeyRef, 'the passphrase from a Secret');
    for (const e of env.values()) if (/PASS|KEY_SECRET|S3_KEY$/.test(e.name)) assert.equal(e.value, undefined, `${e.name} inline`);
    const s3 = args === S3;
    assert.equal(env.get('PGBACKREST_REPO1_TYPE')?.value, s3 ? 's3' : 'posix');
    assert.equal(Boolean(env.get('PGBACKREST_REPO1_S3_KEY')?.valueFrom?.secretKeyRef), s3);
    assert.equal(
      pod.volumes?.some((v) => v.persistentVolumeClaim?.claimName === 'simrs-backups'),
      !s3,
    );
    const policy = ofKind<INetworkPolicy>(objects, 'NetworkPolicy').find((p) => p.metadata!.name === cron.metadata!.name);
    assert.deepEqual(policy?.spec?.policyTypes, ['Egress'], 'the backup pods have an egress rule of their own');
  }
});

test('helm refuses backups without a Postgres host or without the repository it needs', () => {
  for (const [args, message] of [
    [['--set', 'backup.enabled=true'], /backup.postgres.host/],
    [sets(S3_VALUES.filter((a) => !a.includes('bucket'))), /endpoint, bucket and region/],
    [sets(VOLUME_VALUES.filter((a) => !a.includes('claimName'))), /claimName is required/],
  ] as const) {
    const { status, output } = runHelm(['template', 'simrs', chartDir, '--kube-version', kubeVersion, ...args]);
    assert.notEqual(status, 0);
    assert.match(output, message);
  }
});
