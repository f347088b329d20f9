// `Patient/[id]/$everything` (FHIR R4's Patient-everything): the patient, the visits, and the vital
// signs, diagnoses and allergies the caller may reach, in one searchset Bundle. Bounded rather than
// paged: at most INCLUDED_MAX of each type, with a warning naming the type search that pages through
// the rest. The clinical parts pass scopes, role and need-to-know like every clinical read; a part the
// caller may not reach is left out with a warning (the patient and visits are still answered).
import { randomUUID } from 'node:crypto';
import { visitSearch } from '../kunjungan/index.ts';
import { pasienStore } from '../pasien/index.ts';
import { settingsStore } from '../poli/index.ts';
import { FHIR_TYPE } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { guard, patientIdOf, via } from './context.ts';
import type { Interaction } from './context.ts';
import { toEncounter } from './encounter.ts';
import { clinicalOf, INCLUDED_MAX, partOf, warning } from './includes.ts';
import type { Entry } from './includes.ts';
import { toPatient } from './mapping.ts';
import { FhirError } from './outcome.ts';
import { sendResource } from './wire.ts';

/** The visits of the patient (permission kunjungan.list), newest first. */
async function encountersOf(ix: Interaction, pasienId: string, notes: string[]): Promise<Entry[]> {
  guard(ix, 'kunjungan.list');
  const result = await visitSearch(ix.scope).search({
    pasienIds: [[pasienId]],
    statuses: [],
    days: [],
    ids: [],
    limit: INCLUDED_MAX,
    audit: via('everything'),
  });
  if (result.more) notes.push(`more than ${INCLUDED_MAX} Encounter resources: the rest through Encounter?patient=<id>`);
  const organizationId = (await settingsStore(ix.scope).getSettings()).organizationId;
  return result.items.map((k) => ({
    fullUrl: `${ix.base}/Encounter/${k.id}`,
    resource: toEncounter(k, ix.scope.db.tenantId, organizationId),
    search: { mode: 'match' },
  }));
}

export async function everything(ix: Interaction): Promise<void> {
  const { patientId } = guard(ix, 'pasien.read');
  const id = patientIdOf(ix, patientId);
  const p = await pasienStore(ix.scope).getPasien(id, via('everything'));
  if (p.status === 'archived') throw new FhirError(410, 'deleted', 'Patient is deleted (archived)');
  const notes: string[] = [];
  const entry: Entry[] = [{ fullUrl: `${ix.base}/Patient/${id}`, resource: toPatient(p, ix.scope.db.tenantId), search: { mode: 'match' } }];
  entry.push(...(await partOf(notes, 'Encounter', () => encountersOf(ix, id, notes))));
  for (const kind of ['vital', 'diagnosis', 'alergi'] as ServedKind[])
    entry.push(...(await partOf(notes, FHIR_TYPE[kind], () => clinicalOf(ix, kind, { pasienIds: [id] }, 'match', 'everything', notes))));
  for (const note of [...new Set(notes)]) entry.push(warning(note));
  const link = [{ relation: 'self', url: `${ix.base}/Patient/${id}/$everything` }];
  sendResource(ix.res, 200, { resourceType: 'Bundle', id: randomUUID(), type: 'searchset', link, entry }, ix.pretty);
}
