// What a correction never changes: whom an entry is about, the visit it was recorded in and when it
// was taken. A caller that names them on a change (a FHIR update carries the whole resource) is told
// so when they differ, rather than answered as if they had moved.
import { badInput } from '../server/index.ts';
import type { Row } from './rows.ts';
import { instant } from './schema.ts';

/** The patient, visit and time a change names, when it names them. */
export interface About {
  pasienId?: string | undefined;
  kunjunganId?: string | undefined;
  /** As the caller sent it: checked here, since an update's time is otherwise never read. */
  waktu?: unknown;
}

/**
 * Whether `given` names the instant `stored` at the precision it was written to: whole seconds, or a
 * fraction of one to as many digits as it has (a client that keeps seconds only sends the same time).
 */
export function sameInstant(given: string, stored: string): boolean {
  const fraction = /T\d{2}:\d{2}:\d{2}(?:\.(\d+))?/.exec(given)?.[1] ?? '';
  const unitMs = 10 ** Math.max(0, 3 - fraction.length);
  return Math.floor(Date.parse(given) / unitMs) === Math.floor(Date.parse(stored) / unitMs);
}

/** Refuses a change naming another patient, visit or time than the entry `row` has. */
export function checkUnmoved(row: Row, about: About): void {
  const again = 'mark this one entered-in-error and record it again';
  if (about.pasienId !== undefined && about.pasienId !== row.pasien_id)
    throw badInput({ pasienId: [`whom an entry is about never changes: ${again} for its patient`] });
  if (about.kunjunganId !== undefined && about.kunjunganId !== row.kunjungan_id)
    throw badInput({ kunjunganId: [`the visit an entry was recorded in never changes: ${again} in its visit`] });
  if (about.waktu === undefined) return;
  const given = instant.safeParse(about.waktu);
  if (!given.success) throw badInput({ waktu: given.error.issues.map((i) => i.message) });
  if (!sameInstant(given.data, String(row.waktu))) throw badInput({ waktu: [`when it was taken never changes: ${again} with its time`] });
}
