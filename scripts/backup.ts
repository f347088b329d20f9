// `npm run backup [-- --type full|diff|incr]`: a backup of the local stack's Postgres into its encrypted
// pgBackRest repository (scripts/lib/pitr-local.ts); the first run creates both. WAL is archived
// continuously in between, so `npm run restore -- --to <time>` can reach any moment after the first backup.
import { parseArgs } from 'node:util';
import { backup } from './lib/pgbackrest.ts';
import { localCluster } from './lib/pitr-local.ts';

const { values } = parseArgs({ options: { type: { type: 'string', default: 'full' } } });
if (!['full', 'diff', 'incr'].includes(values.type)) {
  console.error('--type must be full, diff or incr');
  process.exit(2);
}
const cluster = await localCluster();
const started = Date.now();
await backup(cluster.repo, values.type as 'full' | 'diff' | 'incr');
console.log(`${values.type} backup of ${cluster.pgData} taken in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`repository: ${cluster.repo.path} (encrypted; passphrase: BACKUP_CIPHER_PASS or .data/pitr/cipher-pass)`);
console.log(`run the stack on it: DATABASE_URL=${cluster.url} npm start`);
