// SMART App Launch v2 scopes for the SIMRS API, and what each scope lets a caller do, written once:
// identity accepts them (authorization server), the dashboard's consent page explains them in plain
// words (its locales, from parseSmartScope), the gateway keeps them in
// the principal it forwards, records enforces them (tRPC, REST and FHIR alike). The role still decides
// what the person may do at all (records' permission matrix); a scope only narrows what the token may.
//
// Grammar (SMART v2): `<context>/<resource>.<permissions>[?category=<token>]`, context `patient`,
// `user` or `system`, resource one of SMART_RESOURCES or `*`, permissions a non-empty subsequence of `cruds` in that
// order. The v1 forms `.read` (= `.rs`), `.write` (= `.cud`) and `.*` (= `.cruds`) are accepted as the
// v2 specification allows. A query (v2 "finer-grained resource constraints using search parameters")
// is honoured in one form only: a single `category` on Observation or Condition, for reading and
// searching, naming a category SIMRS records (SMART_CATEGORIES). Any other query grants nothing here:
// a constraint the API cannot enforce must not widen into the unconstrained scope. `system/` scopes
// (SMART Backend Services: a system acting for itself, with no user) read and search only, reach
// every patient of the client's hospital, and carry no category query; identity gives them only to
// clients that authenticate with a signed JWT and use the client-credentials grant.
import { SCOPE_READ, SCOPE_WRITE } from './access.ts';

/** What can be done with patient records; `audit.read` is the audit trail (no SMART scope reaches it). */
export const PATIENT_ACTIONS = ['create', 'read', 'update', 'delete', 'search'] as const;
export type PatientAction = (typeof PATIENT_ACTIONS)[number];
export type ApiAction = PatientAction | 'audit.read';

const LETTERS: Record<string, PatientAction> = { c: 'create', r: 'read', u: 'update', d: 'delete', s: 'search' };
const V1: Record<string, string> = { read: 'rs', write: 'cud', '*': 'cruds' };

export type SmartContext = 'patient' | 'user' | 'system';

/**
 * The FHIR resource types a scope can name: patients, their visits (Encounter), vital signs
 * (Observation), diagnoses (Condition), allergies (AllergyIntolerance) and notes (DocumentReference).
 */
export const SMART_RESOURCES = ['Patient', 'Encounter', 'Observation', 'Condition', 'AllergyIntolerance', 'DocumentReference'] as const;
export type SmartResource = (typeof SMART_RESOURCES)[number];

/**
 * The resource types a scope may narrow by `?category=`, with the category code system each uses and
 * the codes SIMRS records under it. A scope may name a category as `system|code` or by its bare code.
 */
export const SMART_CATEGORIES = {
  Observation: { system: 'http://terminology.hl7.org/CodeSystem/observation-category', codes: ['vital-signs'] },
  Condition: { system: 'http://terminology.hl7.org/CodeSystem/condition-category', codes: ['encounter-diagnosis'] },
} as const satisfies Partial<Record<SmartResource, { system: string; codes: readonly string[] }>>;
export type CategorizedResource = keyof typeof SMART_CATEGORIES;

/** The permission sets a category-filtered scope may carry: reading and searching only. */
const CATEGORY_PERMISSIONS = ['rs', 'r', 's', 'read'] as const;
/** What a `system/` scope may carry: reading and searching only (a backend service writes nothing). */
const SYSTEM_PERMISSIONS: readonly string[] = CATEGORY_PERMISSIONS;

export interface SmartScope {
  context: SmartContext;
  resource: SmartResource | '*';
  actions: PatientAction[];
  /** The category the scope narrows to, normalised to `system|code`; absent when it reaches every one. */
  category?: string;
}

const SMART = new RegExp(`^(patient|user|system)/(${SMART_RESOURCES.join('|')}|\\*)\\.(c?r?u?d?s?|read|write|\\*)(?:\\?(.*))?$`);

const isCategorized = (resource: string): resource is CategorizedResource => Object.hasOwn(SMART_CATEGORIES, resource);

/** The `category` of a scope's query in `system|code` form, or undefined when the query is not honoured. */
function categoryOf(resource: string, permissions: string, query: string): string | undefined {
  if (!isCategorized(resource) || !(CATEGORY_PERMISSIONS as readonly string[]).includes(permissions)) return undefined;
  if (!query.startsWith('category=')) return undefined;
  const value = query.slice('category='.length);
  const { system, codes } = SMART_CATEGORIES[resource];
  const code = value.startsWith(`${system}|`) ? value.slice(system.length + 1) : value;
  return (codes as readonly string[]).includes(code) ? `${system}|${code}` : undefined;
}

/** The scope's meaning, or undefined when it is not a SMART scope this API honours. */
export function parseSmartScope(scope: string): SmartScope | undefined {
  const m = SMART.exec(scope);
  if (!m || m[3] === '') return undefined;
  const [, context, resource, permissions, query] = m as unknown as [string, SmartContext, SmartResource | '*', string, string?];
  if (context === 'system' && (query !== undefined || !SYSTEM_PERMISSIONS.includes(permissions))) return undefined;
  const category = query === undefined ? undefined : categoryOf(resource, permissions, query);
  if (query !== undefined && !category) return undefined;
  const letters = V1[permissions] ?? permissions;
  return { context, resource, actions: [...letters].map((l) => LETTERS[l]!), ...(category ? { category } : {}) };
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

/**
 * What a set of scopes grants for one action on one resource type: how far it reaches, and which
 * categories it is narrowed to. `categories` absent means every category (a seed scope, or a scope
 * without a query, reaches that far); otherwise the union of the bare category codes (`vital-signs`,
 * `encounter-diagnosis`) of the category-filtered scopes that reach that far, sorted. Each resource
 * has one category system (SMART_CATEGORIES), so the bare code is unambiguous.
 */
export interface ScopeGrant {
  reach: 'all' | 'patient';
  categories?: string[];
}

/** The narrower of two grants' categories at one reach: undefined (every category) wins the union. */
function widen(grant: ScopeGrant, code: string | undefined): ScopeGrant {
  if (!grant.categories || !code) return { reach: grant.reach };
  return { reach: grant.reach, categories: [...new Set([...grant.categories, code])].sort() };
}

/**
 * The grant for (action, resource), or undefined when the scopes do not reach it at all. The widest
 * reach wins, with the categories of the scopes at that reach only: with `user/Observation.rs?category=
 * …|vital-signs` and `patient/Observation.rs` it is every patient's vital signs, and the launch
 * patient's other observations are not granted (one reach, one category list: never more than the
 * scopes allow, rarely less).
 */
export function scopeGrant(scopes: readonly string[], action: ApiAction, resource: SmartResource = 'Patient'): ScopeGrant | undefined {
  if (action === 'audit.read') return scopes.includes(SCOPE_READ) ? { reach: 'all' } : undefined;
  if (scopes.includes(seedScopeFor(action))) return { reach: 'all' };
  let grant: ScopeGrant | undefined;
  for (const scope of scopes) {
    const parsed = parseSmartScope(scope);
    if (!parsed || !parsed.actions.includes(action) || (parsed.resource !== '*' && parsed.resource !== resource)) continue;
    const reach = parsed.context === 'patient' ? 'patient' : 'all';
    const code = parsed.category?.slice(parsed.category.indexOf('|') + 1);
    if (grant?.reach === reach) grant = widen(grant, code);
    else if (!grant || reach === 'all') grant = code ? { reach, categories: [code] } : { reach };
  }
  return grant;
}

/**
 * How far the scopes reach for the whole resource type: category-filtered scopes are left out, so a
 * caller that does not filter by category never reaches more than it was granted (scopeGrant says
 * which categories a filtered scope allows).
 */
export function scopeReach(scopes: readonly string[], action: ApiAction, resource: SmartResource = 'Patient'): Reach {
  return scopeGrant(
    scopes.filter((s) => parseSmartScope(s)?.category === undefined),
    action,
    resource,
  )?.reach;
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
 * Every SMART scope the authorization server accepts, in canonical form: both contexts, every resource
 * name and `*`, every non-empty subsequence of `cruds`, and the v1 forms; then, for Observation and
 * Condition, each category SIMRS records (as `system|code`) with every reading and searching permission.
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
  for (const context of ['patient', 'user']) {
    for (const [resource, { system, codes }] of Object.entries(SMART_CATEGORIES)) {
      for (const code of codes) for (const p of CATEGORY_PERMISSIONS) out.push(`${context}/${resource}.${p}?category=${system}|${code}`);
    }
  }
  return out;
})();

/** Every `system/` scope (SMART Backend Services) the authorization server accepts, in canonical form. */
export const SYSTEM_SCOPES: readonly string[] = [...SMART_RESOURCES, '*'].flatMap((r) => SYSTEM_PERMISSIONS.map((p) => `system/${r}.${p}`));

export function isSystemScope(scope: string): boolean {
  return parseSmartScope(scope)?.context === 'system';
}

/**
 * The role claim of a token issued to a backend service for itself (client credentials): no person
 * stands behind it, so it is none of the staff roles; records decides what it may read.
 */
export const BACKEND_SERVICE_ROLE = 'backend_service';

/** The client assertion algorithms backend services may sign with (SMART Backend Services requires RS384 and ES384). */
export const BACKEND_ASSERTION_ALGS = ['RS384', 'ES384'] as const;

/**
 * `launch/patient` (SMART standalone launch): the user picks one patient on the consent page; every
 * access token of that grant names it (PATIENT_CLAIM in ./oauth.ts) and the token response carries it
 * as `patient`. It grants nothing by itself, so any client may ask for it.
 */
export const LAUNCH_PATIENT_SCOPE = 'launch/patient';

/**
 * The capabilities `/.well-known/smart-configuration` announces (SMART App Launch v2). Not `launch-ehr`
 * nor `context-ehr-*` (no EHR launches apps here) or `context-standalone-encounter` (the launch context
 * is a patient, never a visit). `client-confidential-asymmetric` is SMART Backend Services' signed
 * client assertion (private_key_jwt), offered to client-credentials clients.
 */
export const SMART_CAPABILITIES = [
  'launch-standalone',
  'context-standalone-patient',
  'permission-patient',
  'client-public',
  'client-confidential-symmetric',
  'client-confidential-asymmetric',
  'sso-openid-connect',
  'permission-v1',
  'permission-v2',
  'permission-user',
  'permission-offline',
] as const;
