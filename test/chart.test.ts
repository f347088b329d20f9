// charts/simrs, with the real helm (test/support/k8s-tools.ts): `helm lint --strict` and helm's refusals
// (unknown values keys, too old a Kubernetes); renders it with the default values, every
// deploy/values-*.yaml and every `helm install` command of its README, then checks every rendered
// object against the Kubernetes schemas (unknown fields included), the security and availability
// policy, and that the NetworkPolicies allow exactly the calls the services are configured to make:
// the call graph is derived from the upstream addresses in the rendered Deployments, not copied from
// the chart.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { Ajv } from 'ajv';
import { IMAGE_ENV, MIGRATE_ARGS, serviceArgs } from '@simrs/platform/runtime';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServicePort } from 'kubernetes-models/v1/ServicePort';
import type { IServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { K8sObject, Values } from './support/helm.ts';
import {
  UnknownFieldChecker,
  applySet,
  chartDir,
  mergeValues,
  readYaml,
  readmeInstallCommands,
  render,
  helm,
  kubeVersion,
  runHelm,
  repoRoot,
  validateModel,
  SECRET_SETTING,
} from './support/helm.ts';

// ---- scenarios -------------------------------------------------------------------------------------

interface Scenario {
  name: string;
  release: string;
  namespace: string;
  args: string[];
  values: Values;
  objects: K8sObject[];
}

const chartValues = readYaml('charts/simrs/values.yaml');
const schema = JSON.parse(readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8')) as SchemaNode;
const deployFiles = readdirSync(path.join(repoRoot, 'deploy'))
  .filter((f) => /^values-.+\.yaml$/.test(f))
  .map((f) => `deploy/${f}`);

const readmeCommands = readmeInstallCommands(path.join(chartDir, 'README.md'));

const scenarios: Scenario[] = [
  { name: 'default values', release: 'simrs', namespace: 'simrs', args: [], values: chartValues },
  ...deployFiles.map((file) => ({
    name: file,
    release: 'simrs',
    namespace: 'simrs',
    args: ['-f', file],
    values: mergeValues(chartValues, readYaml(file)),
  })),
  {
    name: 'another release and namespace, migrations off',
    release: 'rs',
    namespace: 'hospital-a',
    args: ['-f', 'deploy/values-production.yaml', '--set', 'migrations.enabled=false'],
    values: applySet(mergeValues(chartValues, readYaml('deploy/values-production.yaml')), 'migrations.enabled=false'),
  },
  ...readmeCommands.map((c, i) => {
    let values = c.files.reduce((v, f) => mergeValues(v, readYaml(f)), chartValues);
    for (const s of c.sets) values = applySet(values, s.assignment, s.flag === '--set-string');
    const args = [...c.files.flatMap((f) => ['-f', f]), ...c.sets.flatMap((s) => [s.flag, s.assignment])];
    return { name: `README command ${i + 1}`, release: c.release, namespace: c.namespace, args, values };
  }),
].map((s) => ({ ...s, objects: render(s.release, s.namespace, s.args) }));

// ---- helpers -----------------------------------------------------------------------------------------

type Labels = Record<string, string>;
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

function matches(selector: Selector | undefined, labels: Labels = {}): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    byLabels &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      if (operator === 'In') return key in labels && values.includes(labels[key]!);
      if (operator === 'NotIn') return !(key in labels) || !values.includes(labels[key]!);
      if (operator === 'Exists') return key in labels;
      return !(key in labels);
    })
  );
}

const ofKind = <T>(s: Scenario, kind: string): Array<T & K8sObject> => s.objects.filter((o) => o.kind === kind) as Array<T & K8sObject>;
const componentOf = (o: { metadata?: { labels?: Labels } }): string => o.metadata?.labels?.['app.kubernetes.io/component'] ?? '';

interface Pod {
  owner: string;
  kind: 'Deployment' | 'Job';
  component: string;
  labels: Labels;
  template: IPodTemplateSpec;
  /** Literal environment (env values and envFrom ConfigMaps) and the names fed from Secrets. */
  env: Map<string, string>;
  secretEnv: Set<string>;
  ports: Map<string, number>;
}

function podsOf(s: Scenario): Pod[] {
  const configMaps = new Map(ofKind<IConfigMap>(s, 'ConfigMap').map((c) => [c.metadata.name, c.data ?? {}]));
  const workloads = [...ofKind<IDeployment>(s, 'Deployment'), ...ofKind<IJob>(s, 'Job')];
  return workloads.map((w) => {
    const template = w.spec!.template;
    const env = new Map<string, string>();
    const secretEnv = new Set<string>();
    const ports = new Map<string, number>();
    for (const c of template.spec!.containers) {
      for (const from of c.envFrom ?? [])
        for (const [k, v] of Object.entries(configMaps.get(from.configMapRef?.name ?? '') ?? {})) env.set(k, v);
      for (const e of c.env ?? []) {
        if (e.value !== undefined) env.set(e.name, e.value);
        if (e.valueFrom?.secretKeyRef) secretEnv.add(e.name);
      }
      for (const p of c.ports ?? []) ports.set(p.name ?? String(p.containerPort), p.containerPort);
    }
    const labels = (template.metadata?.labels ?? {}) as Labels;
    return {
      owner: w.metadata.name,
      kind: w.kind as Pod['kind'],
      component: componentOf(template),
      labels,
      template,
      env,
      secretEnv,
      ports,
    };
  });
}

/** The container port (by number) a Service port sends to on each Deployment pod it selects. */
function targetsOf(pods: Pod[], service: IService, port: IServicePort): Array<{ pod: Pod; port: number | undefined }> {
  const target = port.targetPort ?? port.port;
  return pods
    .filter((p) => p.kind === 'Deployment' && matches({ matchLabels: service.spec!.selector as Labels }, p.labels))
    .map((p) => ({ pod: p, port: typeof target === 'number' ? target : p.ports.get(target) }));
}

/** Where an address like `http://simrs-identity:4001` or `simrs-identity.ns.svc:50051` lands. */
function resolveUpstream(s: Scenario, pods: Pod[], value: string): Array<{ component: string; port: number }> | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/)?([a-z0-9.-]+):(\d+)(?:[/?#].*)?$/i.exec(value);
  if (!m) return undefined;
  const [name, ns = s.namespace, svc = 'svc'] = m[1]!.split('.');
  if (ns !== s.namespace || svc !== 'svc') return undefined;
  const service = ofKind<IService>(s, 'Service').find((x) => x.metadata.name === name);
  if (!service) return undefined;
  const port = service.spec!.ports!.find((p) => p.port === Number(m[2]));
  assert.ok(port, `${value}: Service ${name} has no port ${m[2]}`);
  return targetsOf(pods, service, port).map((t) => ({ component: t.pod.component, port: t.port! }));
}

/** External dependencies, recognised by the contract's variable names. */
const NEEDS: Record<string, string> = {
  DATABASE_URL: 'postgres',
  MIGRATION_DATABASE_URL: 'postgres',
  REDIS_URL: 'redis',
  SMTP_URL: 'smtp',
  SATUSEHAT_WORKER: 'satusehat',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'otelCollector',
};

function expectedOutside(pod: Pod): string[] {
  const needs = new Set(['dns']);
  for (const name of [...pod.env.keys(), ...pod.secretEnv]) if (NEEDS[name]) needs.add(NEEDS[name]);
  return [...needs].sort();
}

// ---- Kubernetes schemas ----------------------------------------------------------------------------

test('the chart renders with every scenario', () => {
  assert.ok(readmeCommands.length >= 1, 'charts/simrs/README.md has no helm install command');
  assert.ok(deployFiles.length >= 3, 'deploy/ has values for development, staging and production');
  for (const s of scenarios) assert.ok(s.objects.length > 20, `${s.name} rendered ${s.objects.length} objects with ${helm}`);
});

test('helm lint --strict passes with the default values and every deploy/ file', () => {
  for (const args of [[], ...deployFiles.map((f) => ['-f', f])]) {
    // At the version the chart is rendered for, and at helm's own default (the newest it knows), so
    // APIs deprecated by either are caught.
    for (const version of [['--kube-version', kubeVersion], []]) {
      const { status, output } = runHelm(['lint', '--strict', chartDir, ...args, ...version]);
      assert.equal(status, 0, `helm lint --strict ${args.join(' ')} ${version.join(' ')}:\n${output}`);
      assert.match(output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  }
});

test('helm refuses a key the values schema does not know', () => {
  const bogus = ['--kube-version', kubeVersion, '--set', 'bogusKey=1'];
  for (const argv of [
    ['template', 'simrs', chartDir, ...bogus],
    ['lint', '--strict', chartDir, ...bogus],
  ]) {
    const { status, output } = runHelm(argv);
    assert.notEqual(status, 0, `helm ${argv.join(' ')} succeeded`);
    assert.match(output, /additional properties 'bogusKey' not allowed/, output);
  }
});

test("helm refuses a Kubernetes version older than the chart's kubeVersion", () => {
  const required = /^kubeVersion:\s*"?([^"\n]+)"?$/m.exec(readFileSync(path.join(chartDir, 'Chart.yaml'), 'utf8'))?.[1];
  assert.equal(required, '>=1.30.0-0');
  const { status, output } = runHelm(['template', 'simrs', chartDir, '--kube-version', 'v1.29.0']);
  assert.notEqual(status, 0, 'helm template --kube-version v1.29.0 succeeded');
  assert.match(output, /chart requires kubeVersion: >=1\.30\.0-0 which is incompatible with Kubernetes v1\.29\.0/, output);
});

/**
 * Custom resources the chart can render (switched off by default) that kubernetes-models does not
 * know: each is checked against the schema of its CRD (the fields used here, unknown ones refused).
 */
const duration = { type: 'string', pattern: '^(0|([0-9]+(ms|s|m|h|d|w|y))+)$' };
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const customResources: Record<string, ReturnType<Ajv['compile']>> = {
  'monitoring.coreos.com/v1/PrometheusRule': new Ajv({ allErrors: true }).compile({
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    additionalProperties: false,
    properties: {
      apiVersion: { const: 'monitoring.coreos.com/v1' },
      kind: { const: 'PrometheusRule' },
      metadata: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string' }, namespace: { type: 'string' }, labels: stringMap, annotations: stringMap },
      },
      spec: {
        type: 'object',
        additionalProperties: false,
        properties: {
          groups: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'rules'],
              additionalProperties: false,
              properties: {
                name: { type: 'string', minLength: 1 },
                interval: duration,
                rules: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['expr'],
                    oneOf: [{ required: ['alert'] }, { required: ['record'] }],
                    additionalProperties: false,
                    properties: {
                      alert: { type: 'string' },
                      record: { type: 'string' },
                      expr: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer' }] },
                      for: duration,
                      keep_firing_for: duration,
                      labels: stringMap,
                      annotations: stringMap,
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  }),
};
const customResource = (o: K8sObject) => customResources[`${o.apiVersion}/${o.kind}`];

test('every rendered object validates against the Kubernetes schemas and has no unknown field', async () => {
  const checker = new UnknownFieldChecker(scenarios.flatMap((s) => s.objects.filter((o) => !customResource(o))));
  for (const s of scenarios) {
    for (const o of s.objects) {
      const where = `${s.name}: ${o.kind}/${o.metadata?.name}`;
      const custom = customResource(o);
      if (custom) assert.ok(custom(o), `${where}: ${JSON.stringify(custom.errors)}`);
      else {
        await assert.doesNotReject(validateModel(o), where);
        assert.deepEqual(checker.unknownFields(o), [], `${where} has fields Kubernetes does not know`);
      }
      for (const key of ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'helm.sh/chart']) {
        assert.ok(o.metadata.labels?.[key], `${where} lacks the label ${key}`);
      }
    }
  }
});

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

test('only the gateway is exposed: ClusterIP Services without ops ports, one Ingress with TLS to the http port', () => {
  for (const s of scenarios) {
    const pods = podsOf(s);
    for (const svc of ofKind<IService>(s, 'Service')) {
      const where = `${s.name}: Service/${svc.metadata.name}`;
      assert.equal(svc.spec!.type ?? 'ClusterIP', 'ClusterIP', where);
      for (const port of svc.spec!.ports ?? []) {
        assert.notEqual(port.name, 'ops', `${where} exposes a port named ops`);
        for (const t of targetsOf(pods, svc, port)) {
          assert.ok(t.port !== undefined, `${where}: port ${port.name} has no container port on ${t.pod.owner}`);
          assert.notEqual(t.port, t.pod.ports.get('ops'), `${where}: port ${port.name} reaches the ops port of ${t.pod.owner}`);
        }
      }
    }
    const ingresses = ofKind<IIngress>(s, 'Ingress');
    assert.equal(ingresses.length, 1, `${s.name}: one Ingress`);
    const spec = ingresses[0]!.spec!;
    const tlsHosts = (spec.tls ?? []).flatMap((t) => (t.secretName ? (t.hosts ?? []) : []));
    for (const rule of spec.rules ?? []) assert.ok(rule.host && tlsHosts.includes(rule.host), `${s.name}: ${rule.host} without TLS`);
    const backends = new Set((spec.rules ?? []).flatMap((r) => r.http?.paths.map((p) => p.backend.service?.name) ?? []));
    const exposed = ofKind<IService>(s, 'Service')
      .filter((x) => backends.has(x.metadata.name))
      .map(componentOf);
    assert.deepEqual(exposed, ['gateway'], `${s.name}: the Ingress reaches only the gateway`);
    for (const backend of (spec.rules ?? []).flatMap((r) => r.http?.paths.map((p) => p.backend.service!) ?? [])) {
      const where = `${s.name}: Ingress backend ${backend.name}:${backend.port?.name ?? backend.port?.number}`;
      const svc = ofKind<IService>(s, 'Service').find((x) => x.metadata.name === backend.name)!;
      const port = svc.spec!.ports!.find((p) => (backend.port?.name ? p.name === backend.port.name : p.port === backend.port?.number));
      assert.ok(port, `${where}: no such Service port`);
      const targets = targetsOf(pods, svc, port);
      assert.ok(targets.length > 0, `${where}: selects no pod`);
      for (const t of targets) {
        assert.ok(t.pod.ports.has('ops'), `${where}: ${t.pod.owner} declares no ops port`);
        assert.notEqual(t.port, t.pod.ports.get('ops'), `${where} reaches the ops port of ${t.pod.owner}`);
        assert.equal(t.port, t.pod.ports.get('http'), `${where} is not the http port of ${t.pod.owner}`);
      }
    }
  }
});

// ---- network policy ---------------------------------------------------------------------------------------

type Direction = 'ingress' | 'egress';
interface Rule {
  policy: string;
  peers: unknown[];
  ports: Array<{ port?: number | string; protocol?: string; endPort?: number }> | undefined;
}

function rulesOf(policies: INetworkPolicy[], pod: Pod, direction: Direction): { isolated: boolean; rules: Rule[] } {
  const selecting = policies.filter((p) => matches(p.spec!.podSelector as Selector, pod.labels));
  const types = (p: INetworkPolicy) => p.spec!.policyTypes ?? (p.spec!.egress ? ['Ingress', 'Egress'] : ['Ingress']);
  const applying = selecting.filter((p) => types(p).includes(direction === 'ingress' ? 'Ingress' : 'Egress'));
  const rules = applying.flatMap((p) =>
    direction === 'ingress'
      ? (p.spec!.ingress ?? []).map((r) => ({ policy: p.metadata!.name!, peers: r.from as unknown[], ports: r.ports }))
      : (p.spec!.egress ?? []).map((r) => ({ policy: p.metadata!.name!, peers: r.to as unknown[], ports: r.ports })),
  );
  return { isolated: applying.length > 0, rules };
}

/** Which configured outside peers (values.networkPolicy.<group>) a rule is, if any. */
function outsideGroups(rule: Rule, np: Values, direction: Direction): string[] {
  return Object.entries(np)
    .filter(([, g]) => {
      const group = g as Values;
      const peers = direction === 'ingress' ? group.from : group.to;
      return peers && isDeepStrictEqual(rule.peers, peers) && (direction === 'ingress' || isDeepStrictEqual(rule.ports, group.ports));
    })
    .map(([name]) => name);
}

const isInternalPeer = (peer: unknown): peer is { podSelector: Selector } =>
  typeof peer === 'object' && peer !== null && Object.keys(peer).join() === 'podSelector';

function allowedPorts(rule: Rule, target: Pod): number[] {
  return [...target.ports].filter(([name, number]) => rule.ports!.some((p) => p.port === number || p.port === name)).map(([, n]) => n);
}

/**
 * The outside peers a pod should have, by values.networkPolicy group: DNS and what its variables use
 * (egress); the Ingress controller on the target port of the Ingress backends, and Prometheus where
 * the pod asks to be scraped (ingress, with ports).
 */
function wantedOutside(s: Scenario, pod: Pod): Record<Direction, Map<string, number[]>> {
  const ingress = new Map<string, number[]>();
  const backends = ofKind<IIngress>(s, 'Ingress').flatMap((i) =>
    (i.spec!.rules ?? []).flatMap((r) => r.http?.paths.map((p) => p.backend.service!) ?? []),
  );
  for (const backend of backends) {
    const svc = ofKind<IService>(s, 'Service').find((x) => x.metadata.name === backend.name);
    if (!svc || !matches({ matchLabels: svc.spec!.selector as Labels }, pod.labels)) continue;
    const target = svc.spec!.ports!.find((p) => p.name === backend.port?.name || p.port === backend.port?.number)!.targetPort!;
    ingress.set('ingressController', [typeof target === 'number' ? target : pod.ports.get(target)!]);
  }
  const scrape = pod.template.metadata?.annotations ?? {};
  if (scrape['prometheus.io/scrape'] === 'true') ingress.set('prometheus', [Number(scrape['prometheus.io/port'])]);
  return { egress: new Map(expectedOutside(pod).map((g) => [g, []])), ingress };
}

test('NetworkPolicies allow exactly the configured call graph, DNS and the outside dependencies each service uses', () => {
  for (const s of scenarios) {
    const pods = podsOf(s);
    const policies = ofKind<INetworkPolicy>(s, 'NetworkPolicy');
    const np = s.values.networkPolicy as Values;
    const problems: string[] = [];

    // What the services are configured to call, from their rendered environment.
    const expected = new Set<string>();
    for (const pod of pods) {
      for (const value of pod.env.values()) {
        for (const target of resolveUpstream(s, pods, value) ?? []) expected.add(`${pod.component} -> ${target.component}:${target.port}`);
      }
    }
    const egress = new Set<string>();
    const ingress = new Set<string>();
    for (const pod of pods) {
      const where = `${pod.kind}/${pod.owner}`;
      const wanted = wantedOutside(s, pod);
      for (const direction of ['ingress', 'egress'] as const) {
        const { isolated, rules } = rulesOf(policies, pod, direction);
        if (!isolated) problems.push(`${where}: not isolated for ${direction}`);
        const covered = new Set<string>();
        for (const rule of rules) {
          if (!rule.peers?.length || !rule.ports?.length) {
            problems.push(`${where}: ${rule.policy} has a ${direction} rule open to any peer or port`);
            continue;
          }
          const groups = outsideGroups(rule, np, direction).filter((g) => wanted[direction].has(g));
          if (groups.length) {
            for (const g of groups) {
              const ports = direction === 'ingress' ? allowedPorts(rule, pod) : [];
              if (!isDeepStrictEqual(ports, wanted[direction].get(g))) problems.push(`${where}: ${g} may reach ports ${ports}`);
              covered.add(g);
            }
          } else if (rule.peers.every(isInternalPeer)) {
            const others = pods.filter((o) => rule.peers.some((p) => matches((p as { podSelector: Selector }).podSelector, o.labels)));
            if (!others.length) problems.push(`${where}: ${rule.policy} names peers that do not exist`);
            for (const other of others) {
              if (direction === 'egress')
                for (const port of allowedPorts(rule, other)) egress.add(`${pod.component} -> ${other.component}:${port}`);
              else for (const port of allowedPorts(rule, pod)) ingress.add(`${other.component} -> ${pod.component}:${port}`);
            }
          } else problems.push(`${where}: ${rule.policy} allows ${direction} with peers it does not use: ${JSON.stringify(rule.peers)}`);
        }
        const missing = [...wanted[direction].keys()].filter((g) => !covered.has(g));
        if (missing.length) problems.push(`${where}: no ${direction} rule for ${missing}`);
      }
    }
    const sorted = (set: Set<string>) => [...set].sort();
    assert.ok(expected.size >= 4, `${s.name}: found only ${sorted(expected)} in the services' upstream settings`);
    assert.deepEqual(problems, [], s.name);
    assert.deepEqual(sorted(egress), sorted(expected), `${s.name}: egress between services`);
    assert.deepEqual(sorted(ingress), sorted(expected), `${s.name}: ingress between services`);
    const reached = new Set([...expected].map((e) => e.split(' -> ')[1]!.split(':')[0]));
    for (const pod of pods.filter((p) => p.kind === 'Deployment')) {
      assert.ok(
        reached.has(pod.component) || wantedOutside(s, pod).ingress.has('ingressController'),
        `${s.name}: nothing calls ${pod.owner}`,
      );
    }
    for (const pod of pods.filter((p) => p.env.has('OTEL_EXPORTER_OTLP_ENDPOINT'))) {
      const port = Number(new URL(pod.env.get('OTEL_EXPORTER_OTLP_ENDPOINT')!).port);
      const ports = ((np.otelCollector as Values).ports as Array<{ port: number }>).map((p) => p.port);
      assert.ok(ports.includes(port), `${s.name}: ${pod.owner} exports to port ${port}, the policy allows ${ports}`);
    }
  }
});

test('the gateway and identity resolve their contract upstreams to release Services', () => {
  const contract: Record<string, string[]> = { gateway: ['IDENTITY_URL', 'IDENTITY_GRPC', 'RECORDS_URL'], identity: ['NOTIFIER_GRPC'] };
  for (const s of scenarios) {
    const pods = podsOf(s);
    for (const [component, names] of Object.entries(contract)) {
      const pod = pods.find((p) => p.kind === 'Deployment' && p.component === component)!;
      for (const name of names) assert.ok(resolveUpstream(s, pods, pod.env.get(name) ?? '')?.length, `${s.name}: ${component} ${name}`);
    }
  }
});

// ---- values schema ----------------------------------------------------------------------------------

interface SchemaNode {
  $ref?: string;
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  definitions?: Record<string, SchemaNode>;
  [key: string]: unknown;
}

const ajv = new Ajv({ allErrors: true });
const validateValues = ajv.compile(schema);
const schemaErrors = (values: Values) =>
  validateValues(values) ? [] : validateValues.errors!.map((e) => `${e.instancePath} ${e.message}`);

test('values.schema.json accepts the chart values, every deploy/ file and every README command', () => {
  for (const s of scenarios) assert.deepEqual(schemaErrors(s.values), [], s.name);
});

test('values.schema.json rejects misspelled keys', () => {
  const misspelled: Values[] = [
    { gatway: { replicaCount: 2 } },
    { gateway: { replicaCont: 3 } },
    { networkPolicy: { postgres: { too: [] } } },
    { telemetry: { metrics: { enable: true } } },
  ];
  for (const patch of misspelled) {
    assert.ok(
      schemaErrors(mergeValues(chartValues, patch)).some((e) => /additional properties/.test(e)),
      JSON.stringify(patch),
    );
  }
  assert.notDeepEqual(schemaErrors(applySet(chartValues, 'networkPolicy.redis.to=null')), [], 'a missing peer list is an error');
  assert.notDeepEqual(schemaErrors(applySet(chartValues, 'config.publicUrl=http://plain.example')), [], 'plain http is an error');
});

test('values.schema.json closes every object', () => {
  const open: string[] = [];
  const walk = (node: unknown, at: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const n = node as SchemaNode;
    if ((n.type === 'object' || n.properties) && n.additionalProperties !== false && typeof n.additionalProperties !== 'object')
      open.push(at);
    for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
  };
  walk(schema, '#');
  assert.deepEqual(open, []);
});

/** The schema node a dotted --set key lands on, or undefined when the schema has no such key. */
function schemaAt(key: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = schema;
  const deref = (n: SchemaNode | undefined) => (n?.$ref ? schema.definitions![n.$ref.split('/').pop()!] : n);
  for (const segment of key.split(/(?<!\\)\./)) {
    const [, name, indexes] = /^(.*?)((?:\[\d+\])*)$/.exec(segment)!;
    node = deref(node);
    const next: SchemaNode | boolean | undefined = node?.properties?.[name!.replace(/\\\./g, '.')] ?? node?.additionalProperties;
    node = typeof next === 'object' ? next : undefined;
    for (let i = 0; i < (indexes!.match(/\[/g) ?? []).length; i++) node = deref(node)?.items;
  }
  return node;
}

test("the README's install commands use this chart, existing files and existing keys", () => {
  for (const c of readmeCommands) {
    assert.equal(path.resolve(repoRoot, c.chart), chartDir, c.text);
    assert.match(c.release, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, c.text);
    for (const f of c.files) assert.doesNotThrow(() => readYaml(f), `${f} in: ${c.text}`);
    for (const s of c.sets) assert.ok(schemaAt(s.assignment.slice(0, s.assignment.indexOf('='))), `unknown key in --set ${s.assignment}`);
  }
  assert.ok(
    readmeCommands.some((c) => c.files.includes('deploy/values-production.yaml')),
    'the README shows the production install',
  );
});

// ---- image -------------------------------------------------------------------------------------------------

interface Stage {
  from: string;
  /** Instructions with continuation lines joined, comments dropped. */
  lines: string[];
}

/** The Dockerfile's stages by name. */
function dockerStages(): Map<string, Stage> {
  const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  const stages = new Map<string, Stage>();
  let current: Stage | undefined;
  for (const line of lines) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)/i.exec(line);
    if (from) stages.set(from[2]!, (current = { from: from[1]!, lines: [] }));
    else current?.lines.push(line);
  }
  return stages;
}

/** Each `ENV` assignment of a stage's line list (`k=v`, `k="v w"`), in order. */
function envAssignments(lines: string[]): Array<[string, string]> {
  return lines
    .filter((l) => /^ENV\s/.test(l))
    .flatMap((l) => [...l.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)])
    .map((m) => [m[1]!, m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!]);
}

/** What a stage runs with, its base stages' settings included: the environment and the command. */
function effective(stages: Map<string, Stage>, name: string): { env: Record<string, string>; cmd: string[] | undefined } {
  const chain: Stage[] = [];
  for (let at = stages.get(name); at; at = stages.get(at.from)) chain.unshift(at);
  const lines = chain.flatMap((s) => s.lines);
  const cmd = lines.filter((l) => /^CMD\s/.test(l)).at(-1);
  return { env: Object.fromEntries(envAssignments(lines)), cmd: cmd ? (JSON.parse(cmd.slice(4)) as string[]) : undefined };
}

/** What the image sets for itself rather than for node: the environment kind, and a writable home. */
const IMAGE_OWN_ENV = ['NODE_ENV', 'HOME', 'TMPDIR'];

test('every service image runs node exactly as runtime.ts says: its options, its command, its allocator', () => {
  const stages = dockerStages();
  const components = new Set(scenarios[0]!.objects.filter((o) => o.kind === 'Deployment').map(componentOf));
  assert.equal(components.size, 4);
  for (const component of components) {
    const { env, cmd } = effective(stages, component);
    assert.deepEqual(cmd, ['node', ...serviceArgs(true)], `${component}: CMD`);
    const nodeEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !IMAGE_OWN_ENV.includes(k)));
    assert.deepEqual(nodeEnv, IMAGE_ENV, `${component}: ENV besides ${IMAGE_OWN_ENV.join(', ')}`);
  }
});

test('the chart leaves the runtime settings to the image: no command, no node options or allocator variables', () => {
  const runtimeVariable = (name: string) => name === 'NODE_OPTIONS' || name in IMAGE_ENV || /^MALLOC_/.test(name);
  for (const s of scenarios) {
    for (const pod of podsOf(s)) {
      const container = pod.template.spec!.containers[0]!;
      if (pod.kind === 'Deployment') assert.equal(container.command ?? container.args, undefined, `${s.name}: ${pod.owner} command`);
      const names = [...pod.env.keys(), ...pod.secretEnv];
      assert.deepEqual(names.filter(runtimeVariable), [], `${s.name}: ${pod.owner} overrides runtime settings`);
    }
  }
});

test('the Dockerfile builds every service as a non-root target from production dependencies', () => {
  const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const stages = new Map([...dockerfile.matchAll(/^FROM\s+(\S+)\s+AS\s+(\S+)/gim)].map((m) => [m[2]!, m[1]!]));
  const chain = (stage: string): string[] => (stages.has(stage) ? [stage, ...chain(stages.get(stage)!)] : []);
  const body = (stage: string) =>
    dockerfile.split(/^FROM\s/m).find((b) => new RegExp(`AS\\s+${stage}\\s*$`, 'm').test(b.split('\n')[0]!)) ?? '';
  for (const component of new Set(scenarios[0]!.objects.filter((o) => o.kind === 'Deployment').map(componentOf))) {
    assert.ok(stages.has(component), `Dockerfile target ${component}`);
    const user =
      chain(component)
        .map(body)
        .join('\n')
        .match(/^USER\s+(\S+)/m)?.[1] ?? 'root';
    assert.ok(!/^(root|0)(:|$)/.test(user), `${component} runs as ${user}`);
  }
  assert.match(dockerfile, /npm ci --omit=dev --omit=optional/);
  assert.doesNotMatch(dockerfile, /npm install/);
  const ignored = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8');
  assert.match(ignored, /^\*$/m, '.dockerignore is an allow-list');
  for (const p of ['**/node_modules', '**/.data', '.git', 'test']) assert.ok(ignored.split('\n').includes(p), `.dockerignore: ${p}`);
});
