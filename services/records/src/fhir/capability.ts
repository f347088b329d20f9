// What this FHIR server says about itself: the CapabilityStatement at `metadata` (exactly the
// interactions, search parameters and sorts implemented) and SMART App Launch's
// `.well-known/smart-configuration` (where the authorization server is, what it accepts). Both public.
import { API_SCOPES, AUTH_BASE_PATH, JWKS_PATH } from '@simrs/contracts/oauth';
import { BACKEND_ASSERTION_ALGS, LAUNCH_PATIENT_SCOPE, SMART_CAPABILITIES, SMART_SCOPES, SYSTEM_SCOPES } from '@simrs/contracts/smart';
import { FHIR_TYPE, VITAL_SIGNS_PROFILE } from './clinical-mapping.ts';
import type { ServedKind } from './clinical-mapping.ts';
import { CLINICAL_PARAMS, CLINICAL_SORTS } from './clinical-params.ts';
import { ENCOUNTER_PARAMS } from './encounter-interactions.ts';
import { INCLUDED_MAX } from './includes.ts';
import { MAX_COUNT, SEARCH_PARAMS, SORTS } from './params.ts';

const DEFINITIONS: Record<string, string> = {
  _id: 'http://hl7.org/fhir/SearchParameter/Resource-id',
  _lastUpdated: 'http://hl7.org/fhir/SearchParameter/Resource-lastUpdated',
  identifier: 'http://hl7.org/fhir/SearchParameter/Patient-identifier',
  name: 'http://hl7.org/fhir/SearchParameter/Patient-name',
  family: 'http://hl7.org/fhir/SearchParameter/individual-family',
  given: 'http://hl7.org/fhir/SearchParameter/individual-given',
  birthdate: 'http://hl7.org/fhir/SearchParameter/individual-birthdate',
  gender: 'http://hl7.org/fhir/SearchParameter/individual-gender',
};

const ENCOUNTER_DEFINITIONS = new Map<string, string>([
  ['_id', 'http://hl7.org/fhir/SearchParameter/Resource-id'],
  ['patient', 'http://hl7.org/fhir/SearchParameter/clinical-patient'],
  ['subject', 'http://hl7.org/fhir/SearchParameter/Encounter-subject'],
  ['status', 'http://hl7.org/fhir/SearchParameter/Encounter-status'],
  ['date', 'http://hl7.org/fhir/SearchParameter/clinical-date'],
]);

/** Encounter: read and search, the visits (statuses change through the API's visit procedures). */
const ENCOUNTER_RESOURCE = {
  type: 'Encounter',
  profile: 'http://hl7.org/fhir/StructureDefinition/Encounter',
  documentation: `The outpatient visits of the caller's hospital, newest first; _count 1 to ${MAX_COUNT} (default 20), one page (narrow the search for more). Status changes go through the REST/tRPC visit procedures.`,
  interaction: ['read', 'search-type'].map((code) => ({ code })),
  versioning: 'versioned',
  readHistory: false,
  updateCreate: false,
  conditionalCreate: false,
  conditionalRead: 'not-supported',
  conditionalUpdate: false,
  conditionalDelete: 'not-supported',
  searchInclude: ['Encounter:subject'],
  searchRevInclude: ['Observation:encounter', 'Condition:encounter', 'AllergyIntolerance:encounter'],
  searchParam: ENCOUNTER_PARAMS.map((p) => ({
    name: p.name,
    definition: ENCOUNTER_DEFINITIONS.get(p.name),
    type: p.type,
    documentation: p.documentation,
  })),
};

const CLINICAL_DOCS: Record<ServedKind, string> = {
  vital: `Vital signs (FHIR vital-signs profile: LOINC code, UCUM quantity; blood pressure as the 85354-9 panel with components 8480-6 and 8462-4). Create one sign or one blood pressure panel per Observation.`,
  diagnosis:
    'Encounter diagnoses coded in ICD-10 (http://hl7.org/fhir/sid/icd-10); rank in the extension https://simrs.id/fhir/StructureDefinition/diagnosis-rank (primary, secondary; default secondary).',
  alergi: 'Allergies of the patient (code.text the substance, or SNOMED CT 716186003 for no known allergy).',
};

/** Observation, Condition, AllergyIntolerance: read, vread, history, search, create, update (a correction). */
function clinicalResource(kind: ServedKind) {
  return {
    type: FHIR_TYPE[kind],
    profile: `http://hl7.org/fhir/StructureDefinition/${FHIR_TYPE[kind]}`,
    ...(kind === 'vital' ? { supportedProfile: [VITAL_SIGNS_PROFILE] } : {}),
    documentation: `${CLINICAL_DOCS[kind]} Need-to-know: a treatment relationship with the patient or a break-the-glass grant. Search needs patient (or subject) or encounter; _count 1 to ${MAX_COUNT} (default 20), _sort ${[...CLINICAL_SORTS.keys()].join(', ')} (default -date), pages through Bundle.link next. Entries entered in error are left out of searches unless the status parameter names entered-in-error. Update is a correction: If-Match (or meta.versionId) and the reason in the extension https://simrs.id/fhir/StructureDefinition/amendment-reason; an update marked entered-in-error retracts the entry.`,
    interaction: ['read', 'vread', 'update', 'history-instance', 'create', 'search-type'].map((code) => ({ code })),
    versioning: 'versioned-update',
    readHistory: true,
    updateCreate: false,
    conditionalCreate: false,
    conditionalRead: 'not-supported',
    conditionalUpdate: false,
    conditionalDelete: 'not-supported',
    searchParam: CLINICAL_PARAMS[kind].map((p) => ({
      name: p.name,
      definition: p.definition,
      type: p.type,
      documentation: p.documentation,
    })),
  };
}

/** The authorization server's endpoints, below the public origin. */
export function oauthEndpoints(origin: string) {
  const issuer = `${origin}${AUTH_BASE_PATH}`;
  return {
    issuer,
    authorize: `${issuer}/oauth2/authorize`,
    token: `${issuer}/oauth2/token`,
    register: `${issuer}/oauth2/register`,
    revoke: `${issuer}/oauth2/revoke`,
    introspect: `${issuer}/oauth2/introspect`,
    jwks: `${origin}${JWKS_PATH}`,
  };
}

const STARTED = new Date().toISOString();

const BULK_EXPORT = {
  name: 'export',
  definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export',
  documentation:
    "Bulk Data export (v2) of the hospital: Prefer: respond-async, _type, _since, _outputFormat (NDJSON); for backend services with system/ scopes, and the hospital's administrator.",
};

export function capabilityStatement(base: string): Record<string, unknown> {
  const oauth = oauthEndpoints(new URL(base).origin);
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: STARTED,
    publisher: 'SIMRS',
    kind: 'instance',
    software: { name: 'SIMRS records' },
    implementation: { description: "SIMRS FHIR R4 server: the patients of the caller's hospital", url: base },
    fhirVersion: '4.0.1',
    format: ['application/fhir+json', 'json'],
    instantiates: ['http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data'],
    rest: [
      {
        mode: 'server',
        documentation:
          "Patients of the caller's hospital only (the tenant of the credential). Every read, search and write is audited. JSON only; errors are OperationOutcomes.",
        security: {
          extension: [
            {
              url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
              extension: [
                { url: 'authorize', valueUri: oauth.authorize },
                { url: 'token', valueUri: oauth.token },
                { url: 'register', valueUri: oauth.register },
                { url: 'revoke', valueUri: oauth.revoke },
                { url: 'introspect', valueUri: oauth.introspect },
              ],
            },
          ],
          cors: true,
          service: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'SMART-on-FHIR' }] }],
          description:
            'OAuth 2.0 bearer tokens from the SIMRS authorization server (see .well-known/smart-configuration), or the SIMRS session cookie from allow-listed origins. Scopes: simrs:read (read, search) and simrs:write (create, update, delete), or SMART v2 user/Patient.cruds, user/Encounter.rs, user/Observation.cruds, user/Condition.cruds and user/AllergyIntolerance.cruds scopes (reading Observation and Condition also narrowed with ?category=<system>|<code>), and patient/ scopes for the patient chosen at a standalone launch (launch/patient); the role decides as well.',
        },
        resource: [
          {
            type: 'Patient',
            profile: 'http://hl7.org/fhir/StructureDefinition/Patient',
            documentation: `Search: _count up to ${MAX_COUNT} (default 20; 0 answers the total alone, no entries); _sort one of ${[...SORTS.keys()].join(', ')} (default: newest registration first, or name order for a name search); pages through Bundle.link next and previous. Unknown parameters are ignored unless Prefer: handling=strict. Delete archives the patient (kept, read answers 410). Conditional create takes If-None-Exist with any of the search parameters, e.g. identifier=https://fhir.kemkes.go.id/id/nik|<NIK>.`,
            interaction: ['read', 'vread', 'update', 'delete', 'history-instance', 'create', 'search-type'].map((code) => ({ code })),
            versioning: 'versioned-update',
            readHistory: true,
            updateCreate: false,
            conditionalCreate: true,
            conditionalRead: 'not-supported',
            conditionalUpdate: false,
            conditionalDelete: 'not-supported',
            searchParam: SEARCH_PARAMS.map((p) => ({
              name: p.name,
              definition: DEFINITIONS[p.name],
              type: p.type,
              documentation: p.documentation,
            })),
            operation: [
              {
                name: 'export',
                definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/patient-export',
                documentation: 'Bulk Data export of every patient, or of one (Patient/{id}/$export), for backend services.',
              },
              {
                name: 'everything',
                definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything',
                documentation: `The patient, the visits, and the vital signs, diagnoses and allergies the caller may reach (need-to-know), at most ${INCLUDED_MAX} of each type (a warning names the search that pages through the rest).`,
              },
            ],
          },
          ENCOUNTER_RESOURCE,
          ...(Object.keys(FHIR_TYPE) as ServedKind[]).map(clinicalResource),
        ],
        operation: [BULK_EXPORT],
      },
    ],
  };
}

/** SMART App Launch v2 discovery for this FHIR base. */
export function smartConfiguration(base: string): Record<string, unknown> {
  const oauth = oauthEndpoints(new URL(base).origin);
  return {
    issuer: oauth.issuer,
    jwks_uri: oauth.jwks,
    authorization_endpoint: oauth.authorize,
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint: oauth.token,
    // private_key_jwt: SMART Backend Services (client credentials with a signed assertion).
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: [...BACKEND_ASSERTION_ALGS],
    registration_endpoint: oauth.register,
    scopes_supported: [
      'openid',
      'profile',
      'email',
      'offline_access',
      ...API_SCOPES,
      ...SMART_SCOPES,
      LAUNCH_PATIENT_SCOPE,
      ...SYSTEM_SCOPES,
    ],
    response_types_supported: ['code'],
    introspection_endpoint: oauth.introspect,
    revocation_endpoint: oauth.revoke,
    capabilities: [...SMART_CAPABILITIES],
    code_challenge_methods_supported: ['S256'],
  };
}
