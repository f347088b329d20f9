// `npm run images`: the four service images (gateway, identity, records, notifier) from the root
// Dockerfile with buildah or podman, tagged localhost/simrs-<service>:local (IMAGE_TAG overrides the
// tag; NODE_IMAGE and BUILD_IMAGE the bases). Prints each image's size. Build logs: .data/containers/build-<service>.log.
import { buildImages, sizeTable } from './lib/containers.ts';

const started = performance.now();
try {
  const { base, images } = await buildImages((line) => console.log(line));
  console.log(`\n${await sizeTable(base.runtime, images)}\n`);
  console.log(`images built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error(`npm run images failed: ${(err as Error).message}`);
  process.exit(1);
}
