// `npm run test:images` (after `npm run images`), first of its two files: what each of the four images
// holds, checked with podman. Not part of `npm test` (its globs match *.test.ts only): it needs podman
// and root.
//   1. each image: non-root, no HEALTHCHECK, no npm, compiler, npm cache or dev dependency; read-only root
//   2. no layer of any image holds the CA bundle given to the build as a secret
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { serviceArgs } from '@simrs/platform/runtime';
import { caBundle, imageExists, imageRef, LOCAL_BASE, OFFICIAL_BASE, SERVICES } from '../../scripts/lib/containers.ts';
import { findSecretInLayers, imageConfig, INSIDE_SCRIPT } from './inspect.ts';
import type { InsideReport } from './inspect.ts';
import { chartRuntime, oneOffs, Run } from './pod.ts';
import { removeOnExit, requireImages, say } from './setup.ts';

const chart = chartRuntime();
const e2e = new Run(randomBytes(3).toString('hex'));
const oneOff = oneOffs(e2e, chart);
removeOnExit(e2e);

before(requireImages);

after(() => e2e.removeAllSync());

describe('the images', () => {
  test('each image: uid 10001, no HEALTHCHECK, no npm, compiler, npm cache or dev dependency; read-only root, writable /tmp', async () => {
    for (const service of SERVICES) {
      const config = await imageConfig(imageRef(service));
      assert.equal(config.user, `${chart.uid}:${chart.gid}`, `${service}: USER`);
      assert.equal(config.healthcheck, undefined, `${service}: no HEALTHCHECK (the chart has the probes)`);
      assert.deepEqual(config.cmd, ['node', ...serviceArgs(true)]);
      const res = await oneOff(service, `${service}-inside`, ['node', '-e', INSIDE_SCRIPT], {}, 60_000);
      const inside = JSON.parse(res.stdout.trim().split('\n').at(-1)!) as InsideReport;
      assert.equal(inside.uid, chart.uid);
      assert.deepEqual(inside.forbidden, [], `${service}: must not exist`);
      assert.deepEqual(inside.devDeps, [], `${service}: dev dependencies`);
      assert.deepEqual(inside.writable, [], `${service}: writable outside /tmp`);
      assert.ok(inside.tmp, `${service}: /tmp is writable`);
      say(`${service}: uid ${inside.uid}, Node ${inside.node}, ${config.workdir}, nothing forbidden`);
    }
  });

  test('no layer holds the CA bundle the build got as a secret', async (t) => {
    const bundle = caBundle();
    if (!bundle) return t.skip('no CA bundle on this machine: the build had no secret');
    // The base the images were built on (the same choice as scripts/lib/containers.ts baseImages).
    const base = process.env.NODE_IMAGE ?? ((await imageExists(OFFICIAL_BASE)) ? OFFICIAL_BASE : LOCAL_BASE);
    for (const service of SERVICES) {
      const scan = await findSecretInLayers(imageRef(service), base, bundle);
      assert.deepEqual(scan.found, [], `${service}: the build secret leaked`);
      assert.ok(scan.layers > 0);
      say(
        `${service}: ${scan.layers} layers above the base (${(scan.bytes / 1e6).toFixed(1)} MB) hold neither ${bundle}, run/secrets nor any of its ${scan.markers} private-certificate lines`,
      );
    }
  });
});
