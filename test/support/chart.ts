// What the chart tests share: charts/simrs rendered (test/support/helm.ts) for each scenario (the default
// values, every deploy/values-*.yaml, another release and namespace, every `helm install` command of
// the chart's README), and the rendered pods with their environment, Secret-fed names and ports, as
// a service reads them.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServicePort } from 'kubernetes-models/v1/ServicePort';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { applySet, chartDir, mergeValues, readYaml, readmeInstallCommands, render, repoRoot } from './helm.ts';
import type { K8sObject, Values } from './helm.ts';

export interface Scenario {
  name: string;
  release: string;
  namespace: string;
  args: string[];
  values: Values;
  objects: K8sObject[];
}

export const chartValues = readYaml('charts/simrs/values.yaml');
export const deployFiles = readdirSync(path.join(repoRoot, 'deploy'))
  .filter((f) => /^values-.+\.yaml$/.test(f))
  .map((f) => `deploy/${f}`);

export const readmeCommands = readmeInstallCommands(path.join(chartDir, 'README.md'));

/** Each way the chart is installed, rendered. */
export const scenarios: Scenario[] = [
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

export type Labels = Record<string, string>;
export interface Selector {
  matchLabels?: Labels;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Whether a label selector (matchLabels and matchExpressions) selects these labels. */
export function matches(selector: Selector | undefined, labels: Labels = {}): boolean {
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

export const ofKind = <T>(s: Scenario, kind: string): Array<T & K8sObject> =>
  s.objects.filter((o) => o.kind === kind) as Array<T & K8sObject>;
export const componentOf = (o: { metadata?: { labels?: Labels } }): string => o.metadata?.labels?.['app.kubernetes.io/component'] ?? '';

export interface Pod {
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

/** The pod of each Deployment and Job, as its containers are configured. */
export function podsOf(s: Scenario): Pod[] {
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
export function targetsOf(pods: Pod[], service: IService, port: IServicePort): Array<{ pod: Pod; port: number | undefined }> {
  const target = port.targetPort ?? port.port;
  return pods
    .filter((p) => p.kind === 'Deployment' && matches({ matchLabels: service.spec!.selector as Labels }, p.labels))
    .map((p) => ({ pod: p, port: typeof target === 'number' ? target : p.ports.get(target) }));
}
