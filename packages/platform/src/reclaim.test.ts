import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { GC_FLAG, startIdleReclaim } from './reclaim.ts';

const reclaim = fileURLToPath(new URL('./reclaim.ts', import.meta.url));

// A child process (the collector exists only where node was started with GC_FLAG): a busy spell that
// leaves 200 MB of garbage behind, then quiet until the reclaimer has run once.
const script = `
import { startIdleReclaim } from ${JSON.stringify(reclaim)};
const r = startIdleReclaim({ everyMs: 100, quietLooks: 3 });
let keep = [];
const until = Date.now() + 1500;
while (Date.now() < until) {
  for (let i = 0; i < 2000; i++) keep.push({ s: 'x'.repeat(64) + i, a: [i, i, i] });
  if (keep.length > 400000) keep = [];
  await new Promise((res) => setImmediate(res));
}
keep = [];
const peak = process.memoryUsage.rss();
while (r.count === 0) await new Promise((res) => setTimeout(res, 50));
await new Promise((res) => setTimeout(res, 500));
console.log(JSON.stringify({ count: r.count, peak, after: process.memoryUsage.rss() }));
process.exit(0);
`;

describe('idle reclaim', () => {
  it('after a busy spell, gives the garbage back once the process is quiet', () => {
    const child = spawnSync(process.execPath, [GC_FLAG, '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const { count, peak, after } = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { count: number; peak: number; after: number };
    assert.equal(count, 1, 'one reclaim for one busy spell');
    assert.ok(after < peak - 32 * 1024 * 1024, `RSS ${after >> 20} MB after, ${peak >> 20} MB at the end of the load`);
  });

  it('reclaims once after the start: loading leaves garbage behind too', () => {
    // A start-up that allocates (as loading and compiling modules does), then no work at all.
    const idle = `
import { startIdleReclaim } from ${JSON.stringify(reclaim)};
const r = startIdleReclaim({ everyMs: 100, quietLooks: 3 });
let keep = [];
for (let i = 0; i < 400000; i++) keep.push({ s: 'x'.repeat(64) + i, a: [i, i, i] });
keep = [];
const until = Date.now() + 3000;
while (r.count === 0 && Date.now() < until) await new Promise((res) => setTimeout(res, 50));
console.log(JSON.stringify({ count: r.count }));
process.exit(0);
`;
    const child = spawnSync(process.execPath, [GC_FLAG, '--input-type=module', '-e', idle], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal((JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { count: number }).count, 1);
  });

  it('does nothing where node was started without the flag', () => {
    assert.equal(startIdleReclaim(), undefined);
  });
});
