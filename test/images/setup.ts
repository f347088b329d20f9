// What both image suites (contents.e2e.ts, images.e2e.ts) do first: check that podman and the four
// images are there, remove what runs killed earlier left, and see that this run's containers are
// removed however the process ends.
import { containerTools, imageExists, imageRef, SERVICES } from '../../scripts/lib/containers.ts';
import { removeStale } from './pod.ts';
import type { Run } from './pod.ts';

export const say = (line: string) => process.stdout.write(`  · ${line}\n`);

/** Throws unless podman is installed and every image built; removes containers of killed runs. */
export async function requireImages(): Promise<void> {
  const tools = await containerTools();
  if (!tools.podman) throw new Error('podman is not installed (apt-get install podman buildah runc slirp4netns uidmap fuse-overlayfs)');
  for (const service of SERVICES)
    if (!(await imageExists(imageRef(service)))) throw new Error(`${imageRef(service)} is missing: run npm run images`);
  const stale = await removeStale();
  if (stale.length) say(`removed ${stale.length} containers left by an earlier run`);
}

/** Removes the run's containers and pod at exit, and on SIGINT or SIGTERM before exiting. */
export function removeOnExit(e2e: Run): void {
  const onSignal = (signal: NodeJS.Signals) => {
    e2e.removeAllSync();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => e2e.removeAllSync());
}
