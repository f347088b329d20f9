// Issue 8: the on-call material holds up. The alert rules (the file and the PrometheusRule the chart
// renders from it) and the Grafana dashboard parse and use only metrics the services declare and
// expose (checked against the instruments in the source and a scrape of a running stack); every alert
// points at a runbook section that exists; and every command of the runbook's `sh runbook` blocks in
// docs/operations.md runs against a local stack (ports and database URLs of `npm start` rewritten to
// this test's stack).
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { RUNTIME_SERIES } from '@simrs/platform/runtime-metrics';
import { repoRoot, testServerUrl, waitFor } from '@simrs/platform/testing';
import { startRedisServer } from '../scripts/lib/redis.ts';
import type { RedisServer } from '../scripts/lib/redis.ts';
import { startStack } from '../scripts/lib/stack.ts';
import type { Stack } from '../scripts/lib/stack.ts';
import { render } from './support/helm.ts';
import { scrape } from './support/prom.ts';
import { seedUsers, signInWithOtp } from './support/users.ts';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';

const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const operations = read('docs/operations.md');
const rulesFile = parse(read('charts/simrs/rules/alerts.yaml')) as {
  groups: Array<{ name: string; rules: Array<Record<string, unknown>> }>;
};
const dashboard = JSON.parse(read('charts/simrs/dashboards/simrs.json')) as {
  uid: string;
  panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>;
};

// ---- metric names ------------------------------------------------------------------------------------

const PROMQL_WORDS = new Set(
  'sum rate irate increase max min avg count histogram_quantile and or unless by without on ignoring group_left group_right bool offset abs clamp_min clamp_max avg_over_time max_over_time min_over_time topk bottomk vector scalar time inf nan'.split(
    ' ',
  ),
);

/** Metric names an expression reads (labels, ranges, strings and grouping lists left out). */
export function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = bare.match(/[a-zA-Z_:][\w:]*/g) ?? [];
  return [...new Set(names.filter((n) => !PROMQL_WORDS.has(n)))];
}

/**
 * The Prometheus names of every instrument created in the services' source, by kind, and the runtime
 * instrumentation's series (test/metrics.test.ts checks every service exposes them).
 */
function declaredMetrics(): Map<string, string> {
  const out = new Map<string, string>(RUNTIME_SERIES.map((name) => [name, 'Runtime']));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const full = path.join(dir, entry);
      if (entry === 'node_modules') continue;
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith('.ts') && !entry.endsWith('.test.ts')) files.push(full);
    }
  };
  for (const dir of ['gateway/src', 'services', 'packages/platform/src']) walk(path.join(repoRoot, dir));
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(
      /create(Counter|UpDownCounter|Histogram|Gauge|ObservableGauge|ObservableCounter|ObservableUpDownCounter)\(\s*'([\w.]+)'/g,
    )) {
      const base = m[2]!.replace(/\./g, '_');
      const kind = m[1]!;
      if (kind === 'Counter' || kind === 'ObservableCounter') out.set(`${base}_total`, kind);
      else if (kind === 'Histogram') for (const suffix of ['_bucket', '_sum', '_count']) out.set(`${base}${suffix}`, kind);
      else out.set(base, kind);
    }
  }
  return out;
}

const declared = declaredMetrics();
const rules = rulesFile.groups.flatMap((g) => g.rules);
const dashboardExprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

/** GitHub's anchor for a Markdown heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s/g, '-');
const anchors = new Set([...operations.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)));

describe('alert rules and dashboard', () => {
  test('the rules parse, each alert has a severity, a summary and a runbook section that exists', () => {
    assert.ok(rules.length >= 10, `${rules.length} rules`);
    const names = new Set<string>();
    for (const rule of rules) {
      const where = String(rule.alert);
      assert.ok(typeof rule.alert === 'string' && /^Simrs\w+$/.test(rule.alert), `alert name ${where}`);
      assert.ok(!names.has(where), `${where} twice`);
      names.add(where);
      assert.equal(typeof rule.expr, 'string');
      assert.match(String((rule.labels as Record<string, string>)?.severity), /^(critical|warning|info)$/, where);
      const annotations = rule.annotations as Record<string, string>;
      assert.ok(annotations?.summary, `${where} has a summary`);
      const anchor = /^docs\/operations\.md#([\w-]+)$/.exec(annotations.runbook ?? '')?.[1];
      assert.ok(anchor && anchors.has(anchor), `${where}: runbook ${annotations.runbook} is a section of docs/operations.md`);
      assert.ok(operations.includes(`\`${where}\``), `${where} is listed in docs/operations.md`);
      // Balanced brackets: a cheap syntax check of the expression.
      for (const [open, close] of [
        ['(', ')'],
        ['{', '}'],
        ['[', ']'],
      ] as const) {
        assert.equal(String(rule.expr).split(open).length, String(rule.expr).split(close).length, `${where}: unbalanced ${open}${close}`);
      }
    }
  });

  test('the rules and the dashboard read only metrics the services declare', () => {
    const unknown: string[] = [];
    for (const rule of rules)
      for (const m of metricsIn(String(rule.expr))) if (!declared.has(m)) unknown.push(`${String(rule.alert)}: ${m}`);
    for (const { panel, expr } of dashboardExprs)
      for (const m of metricsIn(expr)) if (!declared.has(m)) unknown.push(`dashboard "${panel}": ${m}`);
    assert.deepEqual(unknown, []);
    assert.ok(declared.size > 30, `found ${declared.size} declared series`);
  });

  test('the dashboard is a Grafana dashboard with a Prometheus data source variable and a query per panel', () => {
    assert.equal(dashboard.uid, 'simrs-overview');
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    assert.ok(panels.length >= 15);
    for (const p of panels) assert.ok(p.targets?.length && p.targets.every((t) => t.expr.trim()), `panel ${p.title} has queries`);
    assert.match(JSON.stringify(dashboard), /"\$\{datasource\}"/);
  });

  test('the chart renders the rules file as a PrometheusRule and the dashboard as a labelled ConfigMap, only when asked', () => {
    const off = render('simrs', 'simrs');
    assert.ok(!off.some((o) => o.kind === 'PrometheusRule'), 'off by default');
    const on = render('simrs', 'simrs', [
      '--set',
      'monitoring.prometheusRule.enabled=true',
      '--set',
      'monitoring.grafanaDashboard.enabled=true',
    ]);
    const rule = on.find((o) => o.kind === 'PrometheusRule') as unknown as { spec: unknown };
    assert.deepEqual(rule.spec, rulesFile);
    const cm = on.find((o) => o.kind === 'ConfigMap' && o.metadata.labels?.grafana_dashboard === '1') as unknown as {
      data: Record<string, string>;
    };
    assert.deepEqual(JSON.parse(cm.data['simrs.json']!), dashboard);
  });
});

// ---- against a running stack ------------------------------------------------------------------------

let stack: Stack;
let redis: RedisServer;
let mailDir: string;
let catcher: ReturnType<typeof spawn> | undefined;

/** The development mail catcher (what `npm start` runs), so that `npm run mail` has something to read. */
async function startCatcher(dir: string): Promise<{ url: string; messages: SmtpPeer['messages'] }> {
  const child = spawn(process.execPath, ['scripts/mailcatcher.ts'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', MAILCATCHER_SMTP_PORT: '0', MAILCATCHER_HTTP_PORT: '0', MAILCATCHER_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  catcher = child;
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const port = await waitFor('the mail catcher', async () => /smtp=(\d+)/.exec(out)?.[1]);
  return { url: `smtp://127.0.0.1:${port}`, messages: [] };
}

before(async () => {
  mailDir = mkdtempSync(path.join(tmpdir(), 'simrs-mail-'));
  redis = await startRedisServer();
  const mail = await startCatcher(mailDir);
  stack = await startStack({ postgresUrl: testServerUrl, dbPrefix: `t_ops_${Date.now()}_`, redisUrl: redis.url, smtpUrl: mail.url });
  await seedUsers(stack, [{ email: 'admin@rs-demo.test', tenant: 'rs-demo', role: 'tenant_admin' }]);
});

after(async () => {
  await stack?.stop();
  await redis?.stop();
  catcher?.kill('SIGTERM');
  if (mailDir) rmSync(mailDir, { recursive: true, force: true });
});

/** The runbook's commands, in order (only ```sh runbook blocks; continuation lines joined). */
function runbookCommands(): string[] {
  const blocks = [...operations.matchAll(/^ *```sh runbook\n([\s\S]*?)^ *```/gm)].map((m) => m[1]!);
  return blocks
    .flatMap((b) => b.replace(/\\\n/g, ' ').split('\n'))
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

function localized(command: string): string {
  const port = (url: string) => new URL(url).port;
  const ports: Record<string, string> = {
    '8080': port(stack.gatewayUrl),
    '8081': port(stack.urls.gatewayOps),
    '4001': port(stack.urls.identityHttp),
    '4002': port(stack.urls.records),
    '4003': port(stack.urls.notifierHttp),
  };
  let out = command.replace(/localhost:(8080|8081|4001|4002|4003)\b/g, (_, p: string) => `localhost:${ports[p]}`);
  out = out.replace(
    /postgres:\/\/postgres:simrs-local@127\.0\.0\.1:5433\/(identity|records|notifier)\b/g,
    (_, db: 'identity' | 'records' | 'notifier') => stack.databases[db],
  );
  return out.replace(/redis:\/\/127\.0\.0\.1:6380\b/g, redis.url);
}

describe('runbook against a local stack', () => {
  test('every command of the runbook blocks runs and succeeds', async () => {
    // Some traffic first, so that metrics and the mail store have something to show.
    const smtpLike = {
      messages: [] as SmtpPeer['messages'],
      waitForMail: async (address: string) => {
        const found = await waitFor('a mail in the catcher', async () => {
          const run = spawnSync(process.execPath, ['scripts/mail.ts', '3'], {
            cwd: repoRoot,
            env: { ...process.env, MAILCATCHER_DIR: mailDir },
            encoding: 'utf8',
          });
          return run.stdout.includes(address) && /^\s*\d{6}\s*$/m.test(run.stdout) ? run.stdout : undefined;
        });
        return { to: [address], subject: '', text: found, html: '', headers: {} };
      },
      url: '',
      stop: async () => {},
    } as unknown as SmtpPeer;
    const { cookie } = await signInWithOtp(stack, smtpLike, 'admin@rs-demo.test');
    await (await fetch(`${stack.gatewayUrl}/trpc/pasien.list`, { headers: { cookie, origin: stack.publicUrl } })).text();

    const commands = runbookCommands();
    assert.ok(commands.length >= 15, `${commands.length} runbook commands`);
    const env = { ...process.env, IDENTITY_GRPC: stack.urls.identityGrpc, MAILCATCHER_DIR: mailDir, PGCONNECT_TIMEOUT: '5' };
    const failures: string[] = [];
    for (const command of commands) {
      const run = spawnSync('bash', ['-o', 'pipefail', '-c', localized(command)], {
        cwd: repoRoot,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      if (run.status !== 0) failures.push(`${command}\n  exit ${run.status}: ${(run.stderr || run.stdout).slice(0, 400)}`);
      else if (!run.stdout.trim() && !command.endsWith('|| true')) failures.push(`${command}\n  printed nothing`);
    }
    assert.deepEqual(failures, []);
  });

  test('the metrics the alerts read are exposed by the running services', async () => {
    // The runbook test before blocks this process in spawnSync for seconds, past the services' 5 s
    // keep-alive: let the loop see those sockets closed, or fetch reuses one and gets "other side closed".
    await sleep(100);
    const exposed = new Set<string>();
    for (const url of [stack.urls.gatewayOps, stack.urls.identityHttp, stack.urls.records, stack.urls.notifierHttp]) {
      for (const s of await scrape(url)) exposed.add(s.name);
    }
    const missing: string[] = [];
    for (const rule of rules) {
      for (const m of metricsIn(String(rule.expr))) {
        // Counters appear with their first increment; gauges and histograms must be there already.
        if (!exposed.has(m) && declared.get(m) !== 'Counter') missing.push(`${String(rule.alert)}: ${m}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
