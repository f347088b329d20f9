// SMART App Launch v2 scopes for the SIMRS API, and what each scope lets a caller do, written once:
// identity accepts them (authorization server), the dashboard's consent page explains them in plain
// words (its locales, from parseSmartScope), the gateway keeps them in
// the principal it forwards, records enforces them (tRPC, REST and FHIR alike). The role still decides
// what the person may do at all (records' permission matrix); a scope only narrows what the token may.
//
// Grammar (SMART v2): `<context>/<resource>.<permissions>`, context `patient` or `user`, resource
// `Patient`, `Encounter` or `*` (the FHIR resources served), permissions a non-empty subsequence of
// `cruds` in that order. The v1 forms `.read` (= `.rs`), `.write` (= `.cud`) and `.*` (= `.cruds`)
// are accepted as the v2 specification allows. `system/` scopes (backend services) and scopes with
// query parameters (`?category=...`) grant nothing here.
import { SCOPE_READ, SCOPE_WRITE } from './access.ts';

/** What can be done with patient records; `audit.read` is the audit trail (no SMART scope reaches it). */
export const PATIENT_ACTIONS = ['create', 'read', 'update', 'delete', 'search'] as const;
export type PatientAction = (typeof PATIENT_ACTIONS)[number];
export type ApiAction = PatientAction | 'audit.read';

const LETTERS: Record<string, PatientAction> = { c: 'create', r: 'read', u: 'update', d: 'delete', s: 'search' };
const V1: Record<string, string> = { read: 'rs', write: 'cud', '*': 'cruds' };

export type SmartContext = 'patient' | 'user';

/** The FHIR resource types a scope can name: patients, and their visits (Encounter). */
export const SMART_RESOURCES = ['Patient', 'Encounter', 'Observation', 'Condition', 'AllergyIntolerance', 'DocumentReference'] as const;
export type SmartResource = (typeof SMART_RESOURCES)[number];

export interface SmartScope {
  context: SmartContext;
  resource: SmartResource | '*';
  actions: PatientAction[];
}

const SMART = /^(patient|user)\/(Patient|Encounter|\*)\.(c?r?u?d?s?|read|write|\*)$/;

/** The scope's meaning, or undefined when it is not a SMART scope this API honours. */
export function parseSmartScope(scope: string): SmartScope | undefined {
  const m = SMART.exec(scope);
  if (!m || m[3] === '') return undefined;
  const letters = V1[m[3]!] ?? m[3]!;
  return { context: m[1] as SmartContext, resource: m[2] as SmartResource | '*', actions: [...letters].map((l) => LETTERS[l]!) };
}

/** Scopes the API honours: the seed's two, and the SMART scopes above. */
export function isApiScope(scope: string): boolean {
  return scope === SCOPE_READ || scope === SCOPE_WRITE || parseSmartScope(scope) !== undefined;
}

/**
 * How far a set of scopes reaches for one action: `all` (every patient of the caller's hospital),
 * `patient` (only the patient in the token's launch context) or undefined (not at all).
 * `simrs:read` covers reading and searching patients and the audit trail; `simrs:write` creating,
 * changing and archiving (deleting) patients.
 */
export type Reach = 'all' | 'patient' | undefined;

export function scopeReach(scopes: readonly string[], action: ApiAction, resource: SmartResource = 'Patient'): Reach {
  if (action === 'audit.read') return scopes.includes(SCOPE_READ) ? 'all' : undefined;
  const seed = action === 'read' || action === 'search' ? SCOPE_READ : SCOPE_WRITE;
  if (scopes.includes(seed)) return 'all';
  let reach: Reach;
  for (const scope of scopes) {
    const parsed = parseSmartScope(scope);
    if (!parsed || !parsed.actions.includes(action) || (parsed.resource !== '*' && parsed.resource !== resource)) continue;
    if (parsed.context === 'user') return 'all';
    reach = 'patient';
  }
  return reach;
}

/**
 * The seed scopes a SMART scope stands under: `simrs:read` for reading and searching, `simrs:write`
 * for creating, changing and deleting. A client may hold a SMART scope when the administrator allowed
 * it these (a read-only registration token allows `user/Patient.rs`, not `user/Patient.cruds`).
 */
export function seedScopesOf(scope: string): string[] {
  const parsed = parseSmartScope(scope);
  if (!parsed) return [scope];
  return [...new Set(parsed.actions.map(seedScopeFor))];
}

/** The seed scope an action stands under, for messages ("this credential lacks the simrs:read scope"). */
export function seedScopeFor(action: ApiAction): string {
  return action === 'read' || action === 'search' || action === 'audit.read' ? SCOPE_READ : SCOPE_WRITE;
}

/**
 * Every SMART scope the authorization server accepts, in canonical form: both contexts, both resource
 * names, every non-empty subsequence of `cruds`, and the v1 forms.
 */
export const SMART_SCOPES: readonly string[] = (() => {
  const subsets: string[] = [];
  for (let mask = 31; mask > 0; mask--) subsets.push([...'cruds'].filter((_, i) => mask & (16 >> i)).join(''));
  const out: string[] = [];
  for (const context of ['patient', 'user']) {
    for (const resource of [...SMART_RESOURCES, '*']) {
      for (const p of [...subsets, 'read', 'write', '*']) out.push(`${context}/${resource}.${p}`);
    }
  }
  return out;
})();

/**
 * `launch/patient` (SMART standalone launch): the user picks one patient on the consent page; every
 * access token of that grant names it (PATIENT_CLAIM in ./oauth.ts) and the token response carries it
 * as `patient`. It grants nothing by itself, so any client may ask for it.
 */
export const LAUNCH_PATIENT_SCOPE = 'launch/patient';

/**
 * The capabilities `/.well-known/smart-configuration` announces (SMART App Launch v2). Not `launch-ehr`
 * nor `context-ehr-*` (no EHR launches apps here), `context-standalone-encounter` (Patient is the only
 * resource) or `client-confidential-asymmetric` (private_key_jwt is not offered).
 */
export const SMART_CAPABILITIES = [
  'launch-standalone',
  'context-standalone-patient',
  'permission-patient',
  'client-public',
  'client-confidential-symmetric',
  'sso-openid-connect',
  'permission-v1',
  'permission-v2',
  'permission-user',
  'permission-offline',
] as const;
