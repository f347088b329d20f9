// What every FHIR interaction gets: the request, the parsed query, the FHIR base URL, the caller's
// verified principal and tenant scope, and the answer's format; plus the guard (scopes, then role,
// the same rules as the tRPC procedures) and the Prefer header.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '@simrs/contracts/principal';
import { scopeGrant } from '@simrs/contracts/smart';
import type { ScopeGrant } from '@simrs/contracts/smart';
import { ACTION_FOR, authorize, needToKnow, PERMISSION_LABELS, resourceOf, roleMay } from '../access/index.ts';
import type { ClinicalSubject, Permission } from '../access/index.ts';
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
  /** Path parameters: the patient id, the version id (an export's file: the job id and the type). */
  id?: string;
  vid?: string;
  /** The least time between two status polls of a Bulk Data export (bulk-routes.ts). */
  exportPollSeconds?: number;
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

/** Whether an entry's category (its code, with the system it is written in) is within a grant's categories. */
export function categoryAllowed(categories: readonly string[] | undefined, system: string | undefined, code: string): boolean {
  if (!categories) return true;
  return categories.some((c) => {
    const bar = c.lastIndexOf('|');
    return bar < 0 ? c === code : c.slice(bar + 1) === code && (system === undefined || c.slice(0, bar) === system);
  });
}

/** A clinical access allowed by scope and role; need-to-know follows once the subject is known. */
export interface ClinicalAllowed {
  /** How far the scopes reach, and the categories they are narrowed to (`?category=`), from @simrs/contracts/smart. */
  grant: ScopeGrant;
  /** The launch patient when the grant reaches only it. */
  patientId?: string;
}

/**
 * Scopes (with their categories), then the role, for a clinical permission. Need-to-know comes after
 * (needToKnowFor), once the subject is known.
 */
export function clinicalGuard(ix: Interaction, permission: Permission): ClinicalAllowed {
  const action = ACTION_FOR[permission];
  const grant = scopeGrant(ix.principal.scopes, action, resourceOf(permission));
  if (!grant) throw new FhirError(403, 'forbidden', `this credential has no scope for ${resourceOf(permission)} (${action})`);
  if (!roleMay(ix.principal.role, permission))
    throw new FhirError(403, 'forbidden', `role ${ix.principal.role} may not ${PERMISSION_LABELS[permission]}`);
  if (grant.reach === 'all') return { grant };
  if (!ix.principal.patientId)
    throw new FhirError(403, 'forbidden', 'this credential has only patient/ scopes and no patient in its launch context');
  return { grant, patientId: ix.principal.patientId.toLowerCase() };
}

/**
 * Need-to-know for the subject: refuses (403) without a treatment relationship or a break-the-glass
 * grant; otherwise the interaction goes on with a tenant scope whose audit rows carry the purpose.
 */
export async function needToKnowFor(ix: Interaction, permission: Permission, subject: ClinicalSubject): Promise<{ pasienId: string }> {
  const access = await needToKnow(ix.scope.db, ix.scope.actor.userId, permission, subject);
  if (!access) return { pasienId: '' };
  // Several subjects (a search by two patients): one reached only by a grant flags the whole access.
  const breakGlass = access.breakGlass || ix.scope.actor.breakGlass === true;
  ix.scope = { ...ix.scope, actor: { ...ix.scope.actor, breakGlass, purpose: breakGlass ? 'break-the-glass' : 'treatment' } };
  return { pasienId: access.pasienId };
}
