// What every FHIR interaction gets: the request, the parsed query, the FHIR base URL, the caller's
// verified principal and tenant scope, and the answer's format; plus the guard (scopes, then role,
// the same rules as the tRPC procedures) and the Prefer header.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '@simrs/contracts/principal';
import { authorize } from '../access/index.ts';
import type { Permission } from '../access/index.ts';
import type { TenantScope } from '../server/index.ts';
import { FhirError } from './outcome.ts';

export interface Interaction {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  /** The FHIR base the caller used, e.g. https://simrs.example/api/v1/fhir. */
  base: string;
  principal: Principal;
  scope: TenantScope;
  pretty: boolean;
  maxBodyBytes: number;
  /** Path parameters: the patient id, the version id. */
  id?: string;
  vid?: string;
}

/**
 * Scopes, then role (access/permissions.ts). `all`: every patient of the tenant; a patient id: only
 * that one (a `patient/` SMART scope with its launch patient). Refusals are 403 OperationOutcomes.
 */
export function guard(ix: Interaction, permission: Permission): { patientId?: string } {
  const verdict = authorize(ix.principal, permission);
  if ('refused' in verdict) throw new FhirError(403, 'forbidden', verdict.refused);
  return verdict.reach === 'patient' ? { patientId: verdict.patientId } : {};
}

/** The Prefer header's `return` and `handling` preferences (RFC 7240, as FHIR uses them). */
export function preferOf(req: IncomingMessage): { return: 'minimal' | 'representation' | 'OperationOutcome'; strict: boolean } {
  const prefer = String(req.headers.prefer ?? '');
  const ret = /(?:^|[,;\s])return=(minimal|representation|OperationOutcome)\b/.exec(prefer)?.[1] as
    'minimal' | 'representation' | 'OperationOutcome' | undefined;
  return { return: ret ?? 'representation', strict: /(?:^|[,;\s])handling=strict\b/.test(prefer) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The patient id of the path: anything that cannot be one is simply not found. */
export function patientIdOf(ix: Interaction, only?: string): string {
  const id = ix.id ?? '';
  if (!UUID.test(id) || (only !== undefined && only.toLowerCase() !== id.toLowerCase()))
    throw new FhirError(404, 'not-found', 'Patient not found');
  return id.toLowerCase();
}

/** Audit details of every FHIR call: the surface and the interaction, never patient data. */
export const via = (interaction: string) => ({ via: 'fhir', interaction });
