// The four images in one podman pod, run the way the chart runs them: the chart's securityContext and
// /tmp volume (read from charts/simrs), its migration Jobs' command, its grace period. The host's
// Postgres, Redis and SMTP peer are reached through slirp4netns at 10.0.2.2. Every container of a
// run carries labels naming the run and the test process, so leftovers of a killed run are removed.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@simrs/platform/testing';
import { containerEnv, imageRef, lastLines, run, RUN_FLAGS } from '../../scripts/lib/containers.ts';
import type { ImageService } from '../../scripts/lib/containers.ts';

/** From the host's point of view inside a slirp4netns network with allow_host_loopback. */
export const HOST_FROM_CONTAINER = '10.0.2.2';
export const NETWORK = 'slirp4netns:allow_host_loopback=true';

/** A loopback URL (127.0.0.1, localhost) as a container reaches it. */
export function fromContainer(url: string): string {
  const u = new URL(url);
  if (['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)) u.hostname = HOST_FROM_CONTAINER;
  return u.toString();
}

export interface ChartRuntime {
  uid: number;
  gid: number;
  readOnlyRoot: boolean;
  dropAll: boolean;
  noPrivilegeEscalation: boolean;
  tmpSizeMi: number;
  gracePeriodSeconds: number;
  migrateCommand: string[];
  ports: Record<ImageService, Record<string, number>>;
}

const chartFile = (name: string) => readFileSync(join(repoRoot, 'charts/simrs/templates', name), 'utf8');

function define(text: string, name: string): string {
  const body = new RegExp(`define "${name.replace('.', '\\.')}" -}}([\\s\\S]*?){{- end }}`).exec(text)?.[1];
  if (!body) throw new Error(`charts/simrs: no define "${name}"`);
  return body;
}

/** What the chart prescribes for a running container, read from its templates (fails if they change shape). */
export function chartRuntime(): ChartRuntime {
  const helpers = chartFile('_helpers.tpl');
  const security = define(helpers, 'simrs.securityContext');
  const must = (re: RegExp, what: string) => {
    const m = re.exec(security);
    if (!m) throw new Error(`charts/simrs securityContext: expected ${what}`);
    return m;
  };
  const tmp = /emptyDir: \{sizeLimit: (\d+)Mi\}/.exec(define(helpers, 'simrs.tmpVolume'));
  const grace = /terminationGracePeriodSeconds: (\d+)/.exec(chartFile('deployment.yaml'));
  const command = /command: \[([^\]]+)\]/.exec(chartFile('migration-job.yaml'));
  if (!tmp || !grace || !command)
    throw new Error('charts/simrs: /tmp sizeLimit, terminationGracePeriodSeconds or the migration command not found');
  const ports = Object.fromEntries(
    [...define(helpers, 'simrs.ports').matchAll(/^(\w+): \{([^}]*)\}/gm)].map(([, name, list]) => [
      name,
      Object.fromEntries(
        list!
          .split(',')
          .map((pair) => pair.split(':').map((s) => s.trim()))
          .map(([k, v]) => [k, Number(v)]),
      ),
    ]),
  ) as ChartRuntime['ports'];
  return {
    uid: Number(must(/runAsUser: (\d+)/, 'runAsUser')[1]),
    gid: Number(must(/runAsGroup: (\d+)/, 'runAsGroup')[1]),
    readOnlyRoot: Boolean(must(/readOnlyRootFilesystem: (true|false)/, 'readOnlyRootFilesystem')[1] === 'true'),
    dropAll: /capabilities: \{drop: \[ALL\]\}/.test(security),
    noPrivilegeEscalation: must(/allowPrivilegeEscalation: (true|false)/, 'allowPrivilegeEscalation')[1] === 'false',
    tmpSizeMi: Number(tmp[1]),
    gracePeriodSeconds: Number(grace[1]),
    migrateCommand: command[1]!.split(',').map((s) => s.trim()),
    ports,
  };
}

/** podman flags for the chart's securityContext and its /tmp emptyDir. */
export function securityFlags(chart: ChartRuntime): string[] {
  return [
    ...RUN_FLAGS,
    '--user',
    `${chart.uid}:${chart.gid}`,
    ...(chart.readOnlyRoot ? ['--read-only', '--read-only-tmpfs=false'] : []),
    '--tmpfs',
    `/tmp:rw,nosuid,nodev,size=${chart.tmpSizeMi}m,mode=1777`,
    ...(chart.dropAll ? ['--cap-drop=ALL'] : []),
    ...(chart.noPrivilegeEscalation ? ['--security-opt', 'no-new-privileges'] : []),
  ];
}

/**
 * The migration Job's command for a service. The chart names `dist/db/migrate.js` (compiled from
 * `src/db/migrate.ts`); a service tree that still has its migration at `src/migrate.ts` (before the
 * src/ reshaping) gets that path instead.
 */
export function migrateCommand(chart: ChartRuntime, service: 'identity' | 'records' | 'notifier'): string[] {
  const script = chart.migrateCommand.at(-1)!.replace(/^dist\/(.*)\.js$/, 'src/$1.ts');
  if (existsSync(join(repoRoot, 'services', service, script))) return chart.migrateCommand;
  return [...chart.migrateCommand.slice(0, -1), 'src/migrate.ts'];
}

export const envFlags = (env: Record<string, string>) => Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);

/** One-off containers of a run, each of an image with the chart's securityContext, `command` as a pod spec's `command:`. */
export function oneOffs(e2e: Run, chart: ChartRuntime) {
  return (service: ImageService, name: string, command: string[], env: Record<string, string>, timeoutMs: number, network = 'none') =>
    run(
      'podman',
      [
        'run',
        '--rm',
        '--name',
        e2e.name(name),
        ...e2e.labels,
        '--network',
        network,
        ...securityFlags(chart),
        ...envFlags(env),
        imageRef(service),
        ...command,
      ],
      { timeoutMs, what: `${imageRef(service)} ${command.join(' ').slice(0, 40)}` },
    );
}

export class Run {
  readonly id: string;
  readonly labels: string[];
  constructor(id: string) {
    this.id = id;
    this.labels = ['--label', `simrs.e2e=${id}`, '--label', `simrs.e2e.pid=${process.pid}`];
  }

  get pod() {
    return `simrs-e2e-${this.id}`;
  }

  name(what: string) {
    return `simrs-e2e-${this.id}-${what}`;
  }

  /** Removes every container and the pod of this run, synchronously (also from an exit handler). */
  removeAllSync(): void {
    const env = containerEnv();
    const opts = { env, stdio: 'ignore' as const, timeout: 60_000 };
    try {
      const ids = execFileSync('podman', ['ps', '-aq', '--filter', `label=simrs.e2e=${this.id}`], { env, timeout: 30_000 })
        .toString()
        .split('\n')
        .filter(Boolean);
      if (ids.length) execFileSync('podman', ['rm', '-f', '-t', '0', ...ids], opts);
    } catch {
      // best effort; the pod removal below takes the rest
    }
    try {
      execFileSync('podman', ['pod', 'rm', '-f', '-t', '0', '--ignore', this.pod], opts);
    } catch {
      // nothing to remove
    }
  }
}

/** Removes containers and pods left by test runs whose process is gone (a run killed with SIGKILL). */
export async function removeStale(): Promise<string[]> {
  const listing = await run(
    'podman',
    ['ps', '-a', '--pod', '--filter', 'label=simrs.e2e', '--format', '{{.ID}} {{index .Labels "simrs.e2e.pid"}} {{.PodName}}'],
    { timeoutMs: 30_000 },
  );
  const stale: string[] = [];
  const pods = new Set<string>();
  for (const line of listing.stdout.split('\n').filter(Boolean)) {
    const [id, pid, pod] = line.split(' ');
    let alive: boolean;
    try {
      alive = process.kill(Number(pid), 0);
    } catch {
      alive = false;
    }
    if (!alive && id) {
      stale.push(id);
      if (pod) pods.add(pod);
    }
  }
  if (stale.length) await run('podman', ['rm', '-f', '-t', '0', ...stale], { timeoutMs: 60_000, allowFailure: true });
  for (const pod of pods) await run('podman', ['pod', 'rm', '-f', '-t', '0', '--ignore', pod], { timeoutMs: 60_000, allowFailure: true });
  return stale;
}

/** The last lines a container printed (for failure messages). */
export async function logsOf(name: string, lines = 20): Promise<string> {
  const res = await run('podman', ['logs', '--tail', String(lines), name], { timeoutMs: 15_000, allowFailure: true });
  return lastLines(`${res.stdout}\n${res.stderr}`, lines);
}
