// Where the repository is, for the scripts (npm start, npm run migrate, the stack runner, ...): they
// find the workspaces and their data folders from here, not from a test helper.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
