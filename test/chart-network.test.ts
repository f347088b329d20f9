// charts/simrs's network, in every scenario (test/support/chart.ts): only the gateway is exposed (ClusterIP
// Services, one Ingress with TLS to its http port, never an ops port), and the NetworkPolicies allow
// exactly the calls the services are configured to make: the call graph is derived from the upstream
// addresses in the rendered Deployments, not copied from the chart.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { Values } from './support/helm.ts';
import { componentOf, matches, ofKind, podsOf, scenarios, targetsOf } from './support/chart.ts';
import type { Labels, Pod, Scenario, Selector } from './support/chart.ts';

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

// ---- exposure ----------------------------------------------------------------------------------------------

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
