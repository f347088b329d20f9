// `npm run build` (scripts/build.ts): every service module compiled to dist/, and a service started from
// dist/ the way the images start it (serviceArgs(true)) runs without loading a single .ts file: type
// stripping is switched off in that process, so any import that still reached a source would fail
// the start.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JEMALLOC, jemallocInstalled } from '@simrs/platform/runtime';
import { repoRoot, startService, testServerUrl, waitForReady, freePort } from '@simrs/platform/testing';
import type { ServiceProcess } from '@simrs/platform/testing';
import { databaseUrl, dropDatabase, ensureDatabase } from '@simrs/platform/db';
import { BUILT_WORKSPACES, build, compile, leftoverTsImports } from '../scripts/build.ts';

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));

describe('npm run build', () => {
  before(() => build());

  it('rewrites relative .ts specifiers in every import form and keeps lines where they were', () => {
    const source = [
      "import type { A } from './types.ts';",
      "import { b } from '../b.ts';",
      "export * from './c.ts';",
      "import './side.ts';",
      'const d = await import("./d.ts");',
      "import pkg from '@simrs/platform/db';",
      'const x: number = 1;',
      "const file = 'notes.ts';",
    ].join('\n');
    const out = compile(source);
    assert.equal(out.split('\n').length, source.split('\n').length);
    assert.match(out, /from '\.\.\/b\.js'/);
    assert.match(out, /from '\.\/c\.js'/);
    assert.match(out, /import '\.\/side\.js'/);
    assert.match(out, /import\("\.\/d\.js"\)/);
    assert.match(out, /from '@simrs\/platform\/db'/);
    assert.match(out, /const x\s+= 1;/);
    assert.match(out, /'notes\.ts'/, 'a string that is not a specifier stays');
    assert.doesNotMatch(out, /types/, 'type-only imports are erased');
    assert.deepEqual(leftoverTsImports(out), []);
  });

  it('writes a .js file for every non-test module and copies the other files', () => {
    for (const workspace of BUILT_WORKSPACES) {
      const src = join(repoRoot, workspace, 'src');
      for (const file of walk(src)) {
        if (file.endsWith('.test.ts')) continue;
        const rel = relative(src, file);
        const out = join(repoRoot, workspace, 'dist', rel.endsWith('.ts') ? rel.replace(/\.ts$/, '.js') : rel);
        assert.ok(existsSync(out), `${workspace}/dist/${relative(join(repoRoot, workspace, 'dist'), out)} missing`);
        if (rel.endsWith('.ts')) assert.deepEqual(leftoverTsImports(readFileSync(out, 'utf8')), [], out);
      }
      assert.ok(!walk(join(repoRoot, workspace, 'dist')).some((f) => f.endsWith('.ts')), `${workspace}/dist holds .ts files`);
    }
  });

  describe('a service started from dist/', () => {
    let service: ServiceProcess;
    let url: string;
    const database = databaseUrl(testServerUrl, `build_${process.pid}_notifier`);

    before(async () => {
      await ensureDatabase(database);
      const [http, grpc] = [await freePort(), await freePort()];
      url = `http://127.0.0.1:${http}`;
      service = startService(
        'notifier',
        'services/notifier',
        {
          HTTP_PORT: String(http),
          GRPC_PORT: String(grpc),
          DATABASE_URL: database,
          SMTP_URL: 'smtp://127.0.0.1:9',
          MAIL_FROM: 'SIMRS <no-reply@simrs.local>',
          // A .ts file anywhere in the import graph would now fail to load.
          NODE_OPTIONS: '--no-experimental-strip-types',
        },
        { compiled: true },
      );
      await waitForReady(`${url}/readyz`);
    });

    after(async () => {
      await service?.stop();
      await dropDatabase(database);
    });

    it('is ready, serves its metrics, and ran only JavaScript', async () => {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      assert.match(metrics, /^# (HELP|TYPE) /m, 'Prometheus metrics from the compiled telemetry');
      assert.deepEqual(
        service.lines.filter((l) => /ERR_UNKNOWN_FILE_EXTENSION|\.ts\b.*Error/.test(l)),
        [],
      );
    });

    // SERVICE_ENV preloads jemalloc where libjemalloc2 is installed (the images install it): the process
    // must really allocate with it, or the memory it gives back after a load is glibc's again.
    it('allocates with jemalloc where it is installed', { skip: !jemallocInstalled() && 'libjemalloc2 is not installed here' }, () => {
      const maps = readFileSync(`/proc/${service.child.pid}/maps`, 'utf8');
      assert.ok(maps.includes(`/${JEMALLOC}`), `${JEMALLOC} is not mapped into the service`);
    });
  });
});
