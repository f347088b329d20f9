// `npm run restore -- --to <time> [--port 5436]`: the local stack's Postgres as it was at <time>
// (e.g. "2026-11-26 09:30:00+07"), restored from the pgBackRest repository into a fresh cluster beside
// the original, which is left untouched. Prints the new cluster's URL and the time the restore took.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { archiveNow, restoreTo } from './lib/pgbackrest.ts';
import { localCluster, pitrDir } from './lib/pitr-local.ts';

const { values } = parseArgs({ options: { to: { type: 'string' }, port: { type: 'string', default: '5436' } } });
if (!values.to || Number.isNaN(Date.parse(values.to))) {
  console.error('usage: npm run restore -- --to "2026-11-26 09:30:00+07" [--port 5436]');
  process.exit(2);
}
const cluster = await localCluster();
// Everything written up to now goes into the repository first, so that any time until now is reachable.
await archiveNow(cluster.url);
const into = join(pitrDir, `restored-${new Date().toISOString().replace(/[:.]/g, '-')}`);
const started = Date.now();
const url = await restoreTo(cluster.repo, values.to, into, Number(values.port));
console.log(`restored to ${values.to} into ${into} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`check it (docs/operations.md, restore drill), then: DATABASE_URL=${url} npm start`);
