// What this FHIR server says about itself: the CapabilityStatement at `metadata` (exactly the
// interactions, search parameters and sorts implemented) and SMART App Launch's
// `.well-known/smart-configuration` (where the authorization server is, what it accepts). Both public.
import { API_SCOPES, AUTH_BASE_PATH, JWKS_PATH } from '@simrs/contracts/oauth';
import { LAUNCH_PATIENT_SCOPE, SMART_CAPABILITIES, SMART_SCOPES } from '@simrs/contracts/smart';
import { ENCOUNTER_PARAMS } from './encounter-interactions.ts';
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
  searchParam: ENCOUNTER_PARAMS.map((p) => ({
    name: p.name,
    definition: ENCOUNTER_DEFINITIONS.get(p.name),
    type: p.type,
    documentation: p.documentation,
  })),
};

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
            'OAuth 2.0 bearer tokens from the SIMRS authorization server (see .well-known/smart-configuration), or the SIMRS session cookie from allow-listed origins. Scopes: simrs:read (read, search) and simrs:write (create, update, delete), or SMART v2 user/Patient.cruds and user/Encounter.rs scopes, and patient/ scopes for the patient chosen at a standalone launch (launch/patient); the role decides as well.',
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
          },
          ENCOUNTER_RESOURCE,
        ],
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
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint: oauth.token,
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    registration_endpoint: oauth.register,
    scopes_supported: ['openid', 'profile', 'email', 'offline_access', ...API_SCOPES, ...SMART_SCOPES, LAUNCH_PATIENT_SCOPE],
    response_types_supported: ['code'],
    introspection_endpoint: oauth.introspect,
    revocation_endpoint: oauth.revoke,
    capabilities: [...SMART_CAPABILITIES],
    code_challenge_methods_supported: ['S256'],
  };
}
