// The discovery documents (RFC 8414 §2, OpenID Connect Discovery §3) say what this provider does and
// nothing more. Better Auth writes them for every feature it has; SIMRS offers fewer, so its answer is
// corrected here on the way out:
// - `none` is a token endpoint (and revocation endpoint) auth method: public clients are registered
//   with an initial access token; introspection is for confidential clients only;
// - private_key_jwt is offered at the token endpoint only, to backend services (client credentials,
//   oauth/backend-services.ts), with the algorithms SMART Backend Services requires;
// - back-channel logout and the claims parameter are not offered (registration refuses their
//   metadata), so they are not advertised; DPoP (RFC 9449) is, and the gateway checks the proofs;
// - prompt values: those the sign-in and consent pages honour (tested);
// - ID token algorithms: the keys identity holds (oauth/id-tokens.ts);
// - pushed authorization requests (oauth/par.ts).
import { BACKEND_ASSERTION_ALGS } from '@simrs/contracts/smart';
import { ID_TOKEN_ALGS } from './id-tokens.ts';
import { PAR_PATH } from './par.ts';

const SECRET_METHODS = ['client_secret_basic', 'client_secret_post'];

/** What is removed from, and set in, both documents. */
const NOT_OFFERED = [
  'token_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint_auth_signing_alg_values_supported',
  'revocation_endpoint_auth_signing_alg_values_supported',
  'backchannel_logout_supported',
  'backchannel_logout_session_supported',
];

export const PROMPT_VALUES = ['none', 'login', 'consent'];

export function correctDiscovery(document: Record<string, unknown>): Record<string, unknown> {
  const corrected: Record<string, unknown> = { ...document };
  for (const key of NOT_OFFERED) delete corrected[key];
  corrected.token_endpoint_auth_methods_supported = ['none', ...SECRET_METHODS, 'private_key_jwt'];
  corrected.token_endpoint_auth_signing_alg_values_supported = [...BACKEND_ASSERTION_ALGS];
  corrected.revocation_endpoint_auth_methods_supported = ['none', ...SECRET_METHODS];
  corrected.introspection_endpoint_auth_methods_supported = [...SECRET_METHODS];
  if ('claims_parameter_supported' in corrected) corrected.claims_parameter_supported = false;
  if ('prompt_values_supported' in corrected) corrected.prompt_values_supported = PROMPT_VALUES;
  if ('id_token_signing_alg_values_supported' in corrected) corrected.id_token_signing_alg_values_supported = [...ID_TOKEN_ALGS];
  // RFC 9126 §5: pushed authorization requests, optional server-wide, required per client when it registers so.
  if (typeof corrected.issuer === 'string') corrected.pushed_authorization_request_endpoint = `${corrected.issuer}${PAR_PATH}`;
  corrected.require_pushed_authorization_requests = false;
  return corrected;
}

const DISCOVERY_PATH = /\/\.well-known\/(openid-configuration|oauth-authorization-server)$/;

/** Wraps Better Auth's handler: discovery answers are corrected, everything else passes untouched. */
export function withCorrectDiscovery(handler: (request: Request) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const response = await handler(request);
    if (!DISCOVERY_PATH.test(new URL(request.url).pathname) || response.status !== 200) return response;
    const document = (await response.json()) as Record<string, unknown>;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(correctDiscovery(document)), { status: 200, headers });
  };
}
