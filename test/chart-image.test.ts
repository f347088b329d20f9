// The service images against the chart and packages/platform/src/runtime.ts: each Dockerfile target
// runs node with exactly the options, command and allocator runtime.ts names, the chart leaves those to
// the image, and every target runs as non-root from production dependencies only.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { IMAGE_ENV, serviceArgs } from '@simrs/platform/runtime';
import { repoRoot } from './support/helm.ts';
import { componentOf, podsOf, scenarios } from './support/chart.ts';

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
