// The visit as a FHIR R4 Encounter (read-only): an ambulatory encounter of the patient at the clinic,
// its status with the history of every status it had, the visit number as identifier. Following
// SATUSEHAT's Encounter: class AMB, the identifier system http://sys-ids.kemkes.go.id/encounter/<organization id>
// (the hospital's SATUSEHAT organization id, a setting; SIMRS's own system while it is empty), the
// serviceProvider, the location the visit took place in.
import type { Kunjungan } from '../kunjungan/index.ts';

export const AMB = { system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode', code: 'AMB', display: 'ambulatory' };
export const CANCEL_REASON_URL = 'https://simrs.id/fhir/StructureDefinition/cancel-reason';

export const encounterSystem = (organizationId: string, tenantId: string) =>
  organizationId ? `http://sys-ids.kemkes.go.id/encounter/${organizationId}` : `https://simrs.id/fhir/sid/encounter/${tenantId}`;
export const poliSystem = (tenantId: string) => `https://simrs.id/fhir/sid/poli/${tenantId}`;

export function toEncounter(k: Kunjungan, tenantId: string, organizationId: string): Record<string, unknown> {
  // Each status lasted until the next one began; the current one is open.
  const statusHistory = k.statusHistory.map((h, i) => {
    const next = k.statusHistory[i + 1];
    return { status: h.status, period: next ? { start: h.at, end: next.at } : { start: h.at } };
  });
  const period = { start: k.startedAt ?? k.createdAt, ...(k.endedAt ? { end: k.endedAt } : {}) };
  return {
    resourceType: 'Encounter',
    id: k.id,
    meta: { versionId: String(k.version), lastUpdated: k.updatedAt },
    ...(k.cancelReason ? { extension: [{ url: CANCEL_REASON_URL, valueString: k.cancelReason }] } : {}),
    identifier: [{ system: encounterSystem(organizationId, tenantId), value: k.noKunjungan }],
    status: k.status,
    statusHistory,
    class: AMB,
    subject: { reference: `Patient/${k.pasienId}`, display: k.pasienNama },
    period,
    location: [{ location: { identifier: { system: poliSystem(tenantId), value: k.poliId }, display: k.poliNama } }],
    serviceProvider: organizationId
      ? { reference: `Organization/${organizationId}` }
      : { identifier: { system: 'https://simrs.id/fhir/sid/hospital', value: tenantId } },
  };
}
