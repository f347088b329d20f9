// Postgres with automatic failover on loopback: one etcd, two Patroni nodes (Debian's Postgres 15,
// synchronous replication) and HAProxy in front, whose one address always leads to the node Patroni's
// REST API calls the primary (`GET /primary` answers 200 only there). When a node stops being the
// primary, HAProxy marks it down and cuts its sessions, so the services' pools reconnect to the new one.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@simrs/platform/testing';
import { owner, ownedDir, pgBin } from '../../scripts/lib/pgbackrest.ts';

/** Patroni's leader key lives this long without renewal. */
export const TTL_SECONDS = 20;
/** Patroni's loop: how often a node renews its key or looks for a missing leader. */
export const LOOP_WAIT_SECONDS = 1;
/** How long Patroni retries an etcd or Postgres operation (taking the leader lock among them). */
export const RETRY_TIMEOUT_SECONDS = 5;
/**
 * Patroni's own bound for a killed primary: the leader key expires, a replica notices within a loop
 * and takes the lock within the retry timeout.
 */
export const PROMOTION_BOUND_SECONDS = TTL_SECONDS + LOOP_WAIT_SECONDS + RETRY_TIMEOUT_SECONDS;

interface Node {
  name: string;
  pgPort: number;
  restPort: number;
  config: string;
  dataDir: string;
  patroni?: ChildProcess;
}

export interface PatroniCluster {
  /** The server URL through HAProxy (always the primary). */
  url: string;
  /** The name of the node that is primary now (asked of Patroni's REST API). */
  primary(): Promise<string>;
  /** SIGKILL of the primary's Patroni and of its postmaster. */
  killPrimary(): Promise<string>;
  /** Starts a killed node's Patroni again (it rejoins as a replica, by pg_rewind if needed). */
  restart(name: string): Promise<void>;
  /** Waits until `name` streams synchronously from the primary. */
  waitSyncReplica(name: string, timeoutMs?: number): Promise<void>;
  /** A planned switchover to the replica; resolves when Patroni has accepted it. */
  switchover(): Promise<void>;
  stop(): Promise<void>;
}

// As the server user directly (not through runuser), so that a SIGKILL reaches Patroni itself.
const serverUser = (program: string, args: string[]) => {
  const ids = owner();
  return spawn(program, args, { stdio: 'ignore', ...(ids ? { uid: ids.uid, gid: ids.gid, env: { ...process.env, HOME: '/tmp' } } : {}) });
};

function patroniConfig(dir: string, node: Node, etcdPort: number): string {
  return `scope: simrs-recovery
name: ${node.name}
restapi: {listen: '127.0.0.1:${node.restPort}', connect_address: '127.0.0.1:${node.restPort}'}
etcd3: {hosts: '127.0.0.1:${etcdPort}'}
log: {level: WARNING}
bootstrap:
  dcs:
    ttl: ${TTL_SECONDS}
    loop_wait: ${LOOP_WAIT_SECONDS}
    retry_timeout: ${RETRY_TIMEOUT_SECONDS}
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters: {wal_level: replica, hot_standby: 'on', max_wal_senders: 5, max_replication_slots: 5, wal_log_hints: 'on', max_connections: 100}
  initdb: [{encoding: UTF8}, {auth: trust}]
  pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust']
postgresql:
  listen: '127.0.0.1:${node.pgPort}'
  connect_address: '127.0.0.1:${node.pgPort}'
  data_dir: ${node.dataDir}
  bin_dir: ${pgBin}
  pgpass: ${join(dir, `${node.name}.pgpass`)}
  authentication:
    superuser: {username: postgres}
    replication: {username: postgres}
    rewind: {username: postgres}
  parameters: {unix_socket_directories: '${dir}'}
  pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust']
`;
}

function haproxyConfig(port: number, nodes: Node[]): string {
  return `global
  maxconn 400
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:${port}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 250ms fall 2 rise 1 on-marked-down shutdown-sessions
${nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} maxconn 150 check port ${n.restPort}`).join('\n')}
`;
}

const rest = async (node: Node, path: string, init?: RequestInit, timeoutMs = 2_000) =>
  fetch(`http://127.0.0.1:${node.restPort}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);

export async function startPatroni(): Promise<PatroniCluster> {
  const dir = ownedDir(mkdtempSync(join(tmpdir(), 'simrs-patroni-')));
  const [etcdPort, etcdPeer, haPort, ...ports] = await Promise.all(Array.from({ length: 7 }, () => freePort()));
  const nodes: Node[] = ['pg1', 'pg2'].map((name, i) => ({
    name,
    pgPort: ports[2 * i]!,
    restPort: ports[2 * i + 1]!,
    config: join(dir, `${name}.yml`),
    dataDir: join(dir, name),
  }));
  const etcd = spawn(
    'etcd',
    [
      '--data-dir',
      join(dir, 'etcd'),
      '--listen-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls',
      `http://127.0.0.1:${etcdPeer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${etcdPeer}`,
      '--initial-cluster',
      `default=http://127.0.0.1:${etcdPeer}`,
    ],
    { stdio: 'ignore' },
  );
  const haConfig = join(dir, 'haproxy.cfg');
  writeFileSync(haConfig, haproxyConfig(haPort!, nodes));
  const haproxy = spawn('haproxy', ['-f', haConfig], { stdio: 'ignore' });
  const startNode = (node: Node) => {
    node.patroni = serverUser('patroni', [node.config]);
  };
  for (const node of nodes) {
    writeFileSync(node.config, patroniConfig(dir, node, etcdPort!), { mode: 0o644 });
    startNode(node);
  }

  const roleOf = async (node: Node) => (await rest(node, '/primary'))?.status === 200;
  const primaryNode = async () => {
    for (const node of nodes) if (await roleOf(node)) return node;
    return undefined;
  };
  const api: PatroniCluster = {
    url: `postgres://postgres@127.0.0.1:${haPort}/postgres`,
    async primary() {
      return (await waitFor('a primary', primaryNode, 60_000, 200)).name;
    },
    async killPrimary() {
      const node = (await primaryNode())!;
      const postmaster = Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      node.patroni!.kill('SIGKILL');
      process.kill(postmaster, 'SIGKILL');
      return node.name;
    },
    async restart(name) {
      startNode(nodes.find((n) => n.name === name)!);
    },
    async waitSyncReplica(name, timeoutMs = 90_000) {
      await waitFor(
        `${name} as the synchronous replica`,
        async () => {
          const primary = await primaryNode();
          const cluster = primary && (await (await rest(primary, '/cluster'))?.json().catch(() => undefined));
          const member = (cluster?.members as Array<{ name: string; role: string; state: string }> | undefined)?.find(
            (m) => m.name === name,
          );
          return member?.role === 'sync_standby' && ['streaming', 'running'].includes(member.state);
        },
        timeoutMs,
        250,
      );
    },
    async switchover() {
      const leader = (await primaryNode())!;
      const candidate = nodes.find((n) => n !== leader)!;
      const res = await rest(
        leader,
        '/switchover',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ leader: leader.name, candidate: candidate.name }),
        },
        60_000,
      );
      if (res?.status !== 200) throw new Error(`switchover: ${res?.status} ${await res?.text()}`);
    },
    async stop() {
      for (const node of nodes) node.patroni?.kill('SIGKILL');
      for (const node of nodes)
        await new Promise<void>((resolve) =>
          serverUser(join(pgBin, 'pg_ctl'), ['-D', node.dataDir, '-m', 'immediate', 'stop']).once('exit', () => resolve()),
        );
      haproxy.kill('SIGKILL');
      etcd.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    const first = await api.primary();
    await api.waitSyncReplica(nodes.find((n) => n.name !== first)!.name);
  } catch (err) {
    await api.stop();
    throw err;
  }
  return api;
}
