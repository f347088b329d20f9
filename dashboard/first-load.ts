// What a browser downloads before the dashboard's first page shows: the script, the modules it
// preloads and the stylesheet named in dist/index.html, gzipped (as the budget counts them: under
// 250 KB). `node dashboard/first-load.ts` prints it; the dashboard test and the benchmark use it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const FIRST_LOAD_BUDGET_BYTES = 250 * 1024;

export function firstLoad(dist = fileURLToPath(new URL('./dist', import.meta.url))): {
  files: { path: string; bytes: number; gzipBytes: number }[];
  gzipBytes: number;
} {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const paths = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const files = paths.map((path) => {
    const body = readFileSync(join(dist, path));
    return { path, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length };
  });
  return { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { files, gzipBytes } = firstLoad();
  for (const f of files) process.stdout.write(`${f.path}\t${f.bytes} B\t${f.gzipBytes} B gzipped\n`);
  process.stdout.write(`first load: ${(gzipBytes / 1024).toFixed(1)} KB gzipped (budget ${FIRST_LOAD_BUDGET_BYTES / 1024} KB)\n`);
}
