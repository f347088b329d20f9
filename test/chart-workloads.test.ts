// The workloads charts/simrs renders, in every scenario (test/support/chart.ts): every pod restricted
// (non-root, read-only root, no escalation, no capabilities, sized, probed on the ops port), secrets only
// from existing Secrets, service accounts without tokens, migrations as hook Jobs, and each Deployment
// available through disruptions and zones, its ports bound by the variables the services read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIGRATE_ARGS } from '@simrs/platform/runtime';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { Values } from './support/helm.ts';
import { SECRET_SETTING } from './support/helm.ts';
import { componentOf, matches, ofKind, podsOf, scenarios } from './support/chart.ts';
import type { Labels, Selector } from './support/chart.ts';

// ---- pods ----------------------------------------------------------------------------------------------

function containerProblems(c: IContainer, podRunAsNonRoot: boolean | undefined): string[] {
  const sc = c.securityContext ?? {};
  const problems: string[] = [];
  if (!(sc.runAsNonRoot ?? podRunAsNonRoot)) problems.push('may run as root');
  if (sc.runAsUser === 0) problems.push('runs as uid 0');
  if (sc.readOnlyRootFilesystem !== true) problems.push('writable root filesystem');
  if (sc.allowPrivilegeEscalation !== false) problems.push('privilege escalation allowed');
  if (sc.privileged) problems.push('privileged');
  if (!sc.capabilities?.drop?.includes('ALL') || sc.capabilities.add?.length) problems.push('capabilities not all dropped');
  for (const kind of ['requests', 'limits'] as const) {
    for (const r of ['cpu', 'memory']) if (c.resources?.[kind]?.[r] === undefined) problems.push(`no ${r} ${kind}`);
  }
  if (!/(:[\w.-]+|@sha256:[a-f0-9]{64})$/.test(c.image ?? '') || /:latest$/.test(c.image ?? ''))
    problems.push(`image ${c.image} not pinned`);
  return problems.map((p) => `${c.name}: ${p}`);
}

/**
 * The name of the port that serves /healthz, /readyz and /metrics: a service that declares an `ops`
 * port serves them there only (its `http` port answers 404 for them), the others on `http`.
 */
const opsPortName = (ports: Map<string | undefined, number>): 'ops' | 'http' => (ports.has('ops') ? 'ops' : 'http');

/** Service contract: the variable that binds each named container port. */
const PORT_VARIABLES: Record<string, string[]> = { http: ['GATEWAY_PORT', 'HTTP_PORT'], ops: ['OPS_PORT'], grpc: ['GRPC_PORT'] };

function probeProblems(c: IContainer): string[] {
  const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
  const problems: string[] = [];
  if (!c.livenessProbe || !c.readinessProbe) return [`${c.name}: needs liveness and readiness probes`];
  const ops = opsPortName(ports);
  const onOps = (port: number | string | undefined) => ports.has(ops) && (port === ops || port === ports.get(ops));
  const live = c.livenessProbe.httpGet;
  if (!live || live.path !== '/healthz' || !onOps(live.port)) problems.push(`liveness is not HTTP /healthz on the ${ops} port`);
  for (const [kind, probe] of [
    ['startup', c.startupProbe],
    ['readiness', c.readinessProbe],
  ] as const) {
    if (probe?.httpGet && !onOps(probe.httpGet.port)) problems.push(`${kind} probe is not on the ${ops} port`);
  }
  const grpcPort = ports.get('grpc');
  const probes = [c.startupProbe, c.livenessProbe, c.readinessProbe];
  if (grpcPort !== undefined && !probes.some((p) => p?.grpc?.port === grpcPort)) problems.push('gRPC port has no native grpc probe');
  if (grpcPort === undefined && c.readinessProbe.httpGet?.path !== '/readyz') problems.push('readiness is not HTTP /readyz');
  return problems.map((p) => `${c.name}: ${p}`);
}

test('every pod is restricted: non-root, read-only root, no escalation, no capabilities, sized, probed', () => {
  for (const s of scenarios) {
    for (const pod of podsOf(s)) {
      const spec = pod.template.spec!;
      const problems: string[] = [];
      if (spec.securityContext?.seccompProfile?.type !== 'RuntimeDefault') problems.push('no RuntimeDefault seccomp profile');
      if (spec.automountServiceAccountToken !== false) problems.push('mounts a service account token');
      if (spec.hostNetwork || spec.hostPID || spec.hostIPC) problems.push('shares a host namespace');
      if (spec.volumes?.some((v) => v.hostPath)) problems.push('mounts a host path');
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        problems.push(...containerProblems(c, spec.securityContext?.runAsNonRoot));
        const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
        if (!tmp || !spec.volumes?.find((v) => v.name === tmp.name)?.emptyDir) problems.push(`${c.name}: no emptyDir on /tmp`);
        if (pod.kind === 'Deployment') problems.push(...probeProblems(c));
      }
      assert.deepEqual(problems, [], `${s.name}: ${pod.kind}/${pod.owner}`);
    }
  }
});

test('secrets come only from existing Secrets; the owner role reaches only the migration Job', () => {
  for (const s of scenarios) {
    assert.equal(ofKind(s, 'Secret').length, 0, `${s.name}: the chart must not create Secrets`);
    for (const pod of podsOf(s)) {
      for (const name of pod.env.keys()) assert.doesNotMatch(name, SECRET_SETTING, `${s.name}: ${pod.owner} has ${name} in plain text`);
      if (pod.kind === 'Deployment') assert.ok(!pod.secretEnv.has('MIGRATION_DATABASE_URL'), `${s.name}: ${pod.owner} gets the owner role`);
    }
  }
});

test('service accounts carry no token; each pod runs under a rendered one', () => {
  for (const s of scenarios) {
    const accounts = ofKind<IServiceAccount>(s, 'ServiceAccount');
    for (const a of accounts) assert.equal(a.automountServiceAccountToken, false, `${s.name}: ${a.metadata.name}`);
    for (const pod of podsOf(s)) {
      assert.ok(
        accounts.some((a) => a.metadata.name === pod.template.spec!.serviceAccountName),
        `${s.name}: ${pod.owner}'s account`,
      );
    }
  }
});

test('migrations run as pre-install/pre-upgrade hook Jobs with the image of the service they migrate', () => {
  for (const s of scenarios) {
    const images = new Set(ofKind<IDeployment>(s, 'Deployment').map((d) => d.spec!.template.spec!.containers[0]!.image));
    const jobs = ofKind<IJob>(s, 'Job');
    assert.equal(jobs.length, s.values.migrations && (s.values.migrations as Values).enabled ? 3 : 0, s.name);
    for (const job of jobs) {
      const hooks = job.metadata.annotations?.['helm.sh/hook']?.split(',') ?? [];
      assert.ok(hooks.includes('pre-install') && hooks.includes('pre-upgrade'), `${s.name}: ${job.metadata.name} hooks`);
      const pod = job.spec!.template.spec!;
      assert.equal(pod.restartPolicy, 'Never');
      assert.deepEqual(pod.containers[0]!.command, ['node', ...MIGRATE_ARGS]);
      assert.ok(images.has(pod.containers[0]!.image), `${s.name}: ${job.metadata.name} runs an image no Deployment runs`);
      const account = ofKind<IServiceAccount>(s, 'ServiceAccount').find((a) => a.metadata.name === pod.serviceAccountName)!;
      assert.match(
        account.metadata!.annotations?.['helm.sh/hook'] ?? '',
        /pre-install/,
        'a hook Job needs an account that exists before it',
      );
    }
  }
});

// ---- availability ---------------------------------------------------------------------------------------

test('every Deployment has one PDB, topology spread, a config checksum, and an HPA where enabled', () => {
  const checksums = new Map<string, string>();
  for (const s of scenarios) {
    const configMaps = new Map(ofKind<IConfigMap>(s, 'ConfigMap').map((c) => [c.metadata.name, JSON.stringify(c.data)]));
    for (const d of ofKind<IDeployment>(s, 'Deployment')) {
      const where = `${s.name}: Deployment/${d.metadata.name}`;
      const template = d.spec!.template;
      const labels = template.metadata!.labels as Labels;
      const pdbs = ofKind<IPodDisruptionBudget>(s, 'PodDisruptionBudget').filter((p) => matches(p.spec!.selector as Selector, labels));
      assert.equal(pdbs.length, 1, `${where}: PDBs`);
      const keys = (template.spec!.topologySpreadConstraints ?? [])
        .filter((t) => matches(t.labelSelector as Selector, labels))
        .map((t) => t.topologyKey);
      assert.deepEqual(keys.sort(), ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'], `${where}: topology spread`);
      const autoscaling = (s.values[componentOf(d)] as Values).autoscaling as Values;
      const hpas = ofKind<IHorizontalPodAutoscaler>(s, 'HorizontalPodAutoscaler').filter(
        (h) => h.spec!.scaleTargetRef.name === d.metadata.name,
      );
      if (autoscaling.enabled) {
        assert.equal(hpas.length, 1, `${where}: HPA`);
        assert.deepEqual([hpas[0]!.spec!.minReplicas, hpas[0]!.spec!.maxReplicas], [autoscaling.minReplicas, autoscaling.maxReplicas]);
        assert.equal(d.spec!.replicas, undefined, `${where}: replicas belong to the HPA`);
      } else {
        assert.equal(hpas.length, 0, `${where}: no HPA when autoscaling is off`);
        assert.equal(d.spec!.replicas, (s.values[componentOf(d)] as Values).replicaCount);
      }
      const checksum = template.metadata!.annotations?.['checksum/config'] ?? '';
      const data = configMaps.get(template.spec!.containers[0]!.envFrom?.[0]?.configMapRef?.name ?? '');
      assert.match(checksum, /^[a-f0-9]{64}$/, `${where}: checksum/config`);
      assert.equal(checksums.get(checksum) ?? data, data, `${where}: one checksum for two different ConfigMaps`);
      checksums.set(checksum, data!);
    }
  }
});

test('every Deployment binds its declared ports by variable and is scraped on the port with /metrics', () => {
  for (const s of scenarios) {
    for (const pod of podsOf(s).filter((p) => p.kind === 'Deployment')) {
      const where = `${s.name}: ${pod.owner}`;
      const bound = [...pod.ports].map(([name, number]) => {
        const variables = (PORT_VARIABLES[name] ?? []).filter((v) => pod.env.has(v));
        assert.equal(variables.length, 1, `${where}: port ${name} is bound by ${variables.length} of ${PORT_VARIABLES[name]}`);
        assert.equal(Number(pod.env.get(variables[0]!)), number, `${where}: ${variables[0]} and the ${name} port`);
        return variables[0]!;
      });
      const unbound = Object.values(PORT_VARIABLES)
        .flat()
        .filter((v) => pod.env.has(v) && !bound.includes(v));
      assert.deepEqual(unbound, [], `${where}: port variables without a declared container port`);
      const annotations = pod.template.metadata?.annotations ?? {};
      if (annotations['prometheus.io/scrape'] === 'true') {
        assert.equal(Number(annotations['prometheus.io/port']), pod.ports.get(opsPortName(pod.ports)), `${where}: scrape port`);
        assert.equal(annotations['prometheus.io/path'], '/metrics', `${where}: scrape path`);
      }
    }
  }
});
