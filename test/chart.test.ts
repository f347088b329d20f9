// charts/simrs, with the real helm (test/support/k8s-tools.ts): `helm lint --strict` and helm's refusals
// (unknown values keys, too old a Kubernetes); renders it with the default values, every
// deploy/values-*.yaml and every `helm install` command of its README (test/support/chart.ts), then
// checks every rendered object against the Kubernetes schemas (unknown fields included), and the values
// schema against those values and the README's commands. The pods' policy is checked by
// chart-workloads.test.ts, the network by chart-network.test.ts, the images by chart-image.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import type { K8sObject, Values } from './support/helm.ts';
import {
  UnknownFieldChecker,
  applySet,
  chartDir,
  mergeValues,
  readYaml,
  helm,
  kubeVersion,
  runHelm,
  repoRoot,
  validateModel,
} from './support/helm.ts';
import { chartValues, deployFiles, readmeCommands, scenarios } from './support/chart.ts';

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

const schema = JSON.parse(readFileSync(path.join(chartDir, 'values.schema.json'), 'utf8')) as SchemaNode;
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
