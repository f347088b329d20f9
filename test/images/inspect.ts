// What an image holds, checked from outside (its layers) and inside (its filesystem, run as the chart
// runs it): no build secret in any layer, no npm, compiler or npm cache, no dev dependency, non-root,
// no HEALTHCHECK.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { join } from 'node:path';
import { run } from '../../scripts/lib/containers.ts';

const pem = (text: string) =>
  [...text.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map((m) => m[1]!.replace(/\s+/g, ''));

/** Public roots: Node's own store and Debian's ca-certificates (packages such as @simplewebauthn ship some). */
function publicRoots(): Set<string> {
  const roots = new Set(rootCertificates.flatMap(pem));
  const debian = '/usr/share/ca-certificates';
  if (existsSync(debian))
    for (const file of readdirSync(debian, { recursive: true, encoding: 'utf8' }))
      if (file.endsWith('.crt')) for (const body of pem(readFileSync(join(debian, file), 'utf8'))) roots.add(body);
  return roots;
}

/** Base64 lines (64 characters) of the bundle's certificates that are not public roots: the ones added on this machine. */
export function privateCertificateLines(bundle: string): string[] {
  const publicSet = publicRoots();
  return pem(readFileSync(bundle, 'utf8'))
    .filter((body) => !publicSet.has(body))
    .flatMap((body) => body.match(/.{64}/g) ?? []);
}

interface TarEntry {
  name: string;
  data: Buffer;
}

/** The entries of an uncompressed tar (ustar, GNU long names, PAX paths). */
function* tarEntries(buf: Buffer): Generator<TarEntry> {
  const str = (b: Buffer) => b.toString('utf8').replace(/\0.*$/s, '');
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= buf.length) {
    const header = buf.subarray(offset, offset + 512);
    if (header[0] === 0) break;
    const size = parseInt(str(header.subarray(124, 136)).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const data = buf.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') longName = str(data);
    else if (type === 'x') longName = /\d+ path=([^\n]*)\n/.exec(data.toString('utf8'))?.[1] ?? longName;
    else {
      const prefix = str(header.subarray(345, 500));
      const name = str(header.subarray(0, 100));
      yield { name: longName ?? (prefix ? `${prefix}/${name}` : name), data };
      longName = undefined;
    }
  }
}

/**
 * Looks through every layer the image adds on top of `base` for the secret file: a path under
 * run/secrets, a file with the same bytes, or any line of a certificate of it that is not a public root.
 * Returns what it found (empty: nothing) and what it looked through.
 */
export async function findSecretInLayers(
  ref: string,
  base: string,
  secretFile: string,
): Promise<{ found: string[]; layers: number; bytes: number; markers: number }> {
  const dir = mkdtempSync(join(process.env.TMPDIR ?? '/var/tmp', 'simrs-layers-'));
  try {
    await run('podman', ['save', '--format', 'docker-dir', '--uncompressed', '-o', join(dir, 'image'), ref], { timeoutMs: 120_000 });
    const baseLayers = new Set<string>(
      JSON.parse((await run('podman', ['image', 'inspect', '--format', '{{json .RootFS.Layers}}', base], { timeoutMs: 30_000 })).stdout),
    );
    const manifest = JSON.parse(readFileSync(join(dir, 'image', 'manifest.json'), 'utf8')) as { layers: Array<{ digest: string }> };
    const secret = readFileSync(secretFile);
    const markers = privateCertificateLines(secretFile).map((line) => Buffer.from(line));
    const found: string[] = [];
    let layers = 0;
    let bytes = 0;
    for (const { digest } of manifest.layers) {
      if (baseLayers.has(digest)) continue;
      const layer = readFileSync(join(dir, 'image', digest.replace(/^sha256:/, '')));
      layers++;
      bytes += layer.length;
      for (const entry of tarEntries(layer)) {
        if (/(^|\/)run\/secrets(\/|$)/.test(entry.name)) found.push(`${digest.slice(7, 19)}: ${entry.name}`);
        else if (entry.data.length === secret.length && entry.data.equals(secret))
          found.push(`${digest.slice(7, 19)}: ${entry.name} is the CA bundle`);
        else if (markers.some((m) => entry.data.includes(m)))
          found.push(`${digest.slice(7, 19)}: ${entry.name} holds a private certificate of the bundle`);
      }
    }
    return { found, layers, bytes, markers: markers.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ImageConfig {
  user: string;
  healthcheck: unknown;
  cmd: string[];
  workdir: string;
}

export async function imageConfig(ref: string): Promise<ImageConfig> {
  const [info] = JSON.parse((await run('podman', ['image', 'inspect', ref], { timeoutMs: 30_000 })).stdout) as Array<{
    Config: { User?: string; Healthcheck?: unknown; Cmd?: string[]; WorkingDir?: string };
    HealthCheck?: unknown;
  }>;
  return {
    user: info!.Config.User ?? '',
    healthcheck: info!.Config.Healthcheck ?? info!.HealthCheck,
    cmd: info!.Config.Cmd ?? [],
    workdir: info!.Config.WorkingDir ?? '',
  };
}

/** Paths that must not exist in a service image. */
export const FORBIDDEN_PATHS = [
  '/usr/local/bin/npm',
  '/usr/local/bin/npx',
  '/usr/local/lib/node_modules/npm',
  '/usr/local/bin/corepack',
  '/usr/bin/gcc',
  '/usr/bin/cc',
  '/usr/bin/g++',
  '/usr/bin/make',
  '/usr/bin/python3',
  '/root/.npm',
  '/tmp/.npm',
  '/app/node_modules/.cache',
  '/app/node_modules/typescript',
  '/app/node_modules/.bin/tsc',
];

/**
 * Runs inside the image (as the chart runs it): who it runs as, which forbidden paths exist, which
 * packages the lockfile marks dev or optional are installed, where it can write.
 */
export const INSIDE_SCRIPT = `
const fs = require('node:fs');
const forbidden = ${JSON.stringify(FORBIDDEN_PATHS)}.filter((p) => fs.existsSync(p));
const lock = JSON.parse(fs.readFileSync('/app/package-lock.json', 'utf8'));
const devDeps = Object.entries(lock.packages)
  .filter(([path, p]) => path.includes('node_modules/') && (p.dev || p.devOptional || p.optional) && fs.existsSync('/app/' + path))
  .map(([path]) => path);
let writable = [];
for (const dir of ['/', '/app', '/usr', '/etc', process.cwd()]) {
  try { fs.writeFileSync(dir + '/.probe', 'x'); writable.push(dir); } catch {}
}
let tmp = false;
try { fs.writeFileSync('/tmp/.probe', 'x'); tmp = true; } catch {}
console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), node: process.version, forbidden, devDeps, writable, tmp }));
`;

export interface InsideReport {
  uid: number;
  gid: number;
  node: string;
  forbidden: string[];
  devDeps: string[];
  writable: string[];
  tmp: boolean;
}
