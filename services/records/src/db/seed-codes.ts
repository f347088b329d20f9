// The development code list for the seed (seed.ts): about a hundred common outpatient ICD-10 codes
// (codes/icd10-dev.csv, names written for this project, not the licensed publication), so that a
// clinician on a fresh machine can pick diagnoses. Loaded only while the system has no codes at all:
// a full list an operator loaded is never replaced by the short one.
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { hasCodes, loadCodes, readCodeFile } from '../kode/index.ts';

export const DEV_CODE_LIST = fileURLToPath(new URL('../../codes/icd10-dev.csv', import.meta.url));

/** Loads the development list when there are no ICD-10 codes yet; returns how many it added. */
export async function seedCodes(owner: pg.ClientBase, file = DEV_CODE_LIST): Promise<number> {
  if (await hasCodes(owner, 'icd-10')) return 0;
  const counts = await loadCodes(owner, 'icd-10', await readCodeFile(file, 'icd-10'));
  return counts.added;
}
