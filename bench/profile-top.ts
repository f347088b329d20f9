// `node bench/profile-top.ts <file.cpuprofile> [n]`: where a service's CPU went under the bench's load
// (run it with BENCH_PROFILE_DIR set; module loading is left out). Prints the top functions by self time,
// the top functions by total time (self plus what they called, each sample counted once per function even
// when it recurses), the top packages or source files by self time, and the same with Node's internals
// (socket writes, JSON, streams) charged to the package or file that called them, as shares of the busy
// (non-idle) samples of the main thread (work on libuv's pool, such as WebCrypto signing, is not sampled).
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

const [file, n = '15'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as { nodes: Node[] };
const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);
const where = (url: string) => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1]!;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\/.*?\/(gateway|services|packages)\//, '$1/') || '(native)';
};
// Module loading at start (and the loader-hooks thread) is not the hot path: those subtrees are left out.
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const loading = (node: Node): boolean => {
  for (let at: Node | undefined = node; at; at = byId.get(parent.get(at.id) ?? -1)) {
    if (/^node:internal\/modules\/|^node:internal\/bootstrap/.test(at.callFrame.url)) return true;
  }
  return false;
};
const keyOf = (node: Node) =>
  `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
/**
 * Who asked for a sample: the nearest package or source file on its stack. A socket write, a
 * JSON.stringify or an event emitter is charged to the code that called it, so `pg` includes the
 * write to Postgres and `(garbage collector)` stays on its own.
 */
const ownerOf = (node: Node): string => {
  if (node.callFrame.functionName === '(garbage collector)') return '(garbage collector)';
  for (let at: Node | undefined = node; at; at = byId.get(parent.get(at.id) ?? -1)) {
    const place = where(at.callFrame.url);
    if (place !== '(native)' && !place.startsWith('node:')) return place;
  }
  return `${node.callFrame.functionName} ${where(node.callFrame.url)}`;
};
const bySelf = new Map<string, number>();
const byTotal = new Map<string, number>();
const byPlace = new Map<string, number>();
const byOwner = new Map<string, number>();
let busy = 0;
let gc = 0;
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  const { functionName, url } = node.callFrame;
  if (functionName === '(garbage collector)') gc += hits;
  if (IDLE.has(functionName) && functionName !== '(garbage collector)') continue;
  if (loading(node)) continue;
  busy += hits;
  const key = keyOf(node);
  const onStack = new Set<string>();
  for (let at: Node | undefined = node; at; at = byId.get(parent.get(at.id) ?? -1)) onStack.add(keyOf(at));
  for (const k of onStack) byTotal.set(k, (byTotal.get(k) ?? 0) + hits);
  bySelf.set(key, (bySelf.get(key) ?? 0) + hits);
  byPlace.set(where(url), (byPlace.get(where(url)) ?? 0) + hits);
  const owner = ownerOf(node);
  byOwner.set(owner, (byOwner.get(owner) ?? 0) + hits);
}
const top = (m: Map<string, number>) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(n))
    .map(([k, v]) => `${((100 * v) / busy).toFixed(1).padStart(5)}%  ${k}`)
    .join('\n');
console.log(
  `busy samples ${busy}, garbage collection ${((100 * gc) / busy).toFixed(1)}%

by function (self):
${top(bySelf)}

by function (total):
${top(byTotal)}

by package / file (self):
${top(byPlace)}

by package / file, Node internals charged to their caller:
${top(byOwner)}`,
);
