// Better Auth's own client for identity (same origin, /api/auth): sign-in by passkey, e-mail code and
// magic link, the session, passkeys, and the OAuth provider's client plugin, which sends the signed
// authorization request in the page's query along with every POST made from the OAuth pages (lib/oauth.ts). identity's own endpoints (its account and tenant API) go through
// the same client's fetch, so cookies, errors and base URL are handled in one place.
import { oauthProviderClient } from '@better-auth/oauth-provider/client';
import { passkeyClient } from '@better-auth/passkey/client';
import { emailOTPClient, inferAdditionalFields, magicLinkClient } from 'better-auth/client/plugins';
import { createAuthClient } from 'better-auth/react';
import type { Role } from '@simrs/contracts/access';

export const authClient = createAuthClient({
  baseURL: window.location.origin,
  basePath: '/api/auth',
  // A session ended elsewhere (signed out, revoked, deactivated) is noticed within a minute even on
  // an idle screen, and at once on the next API call (main.tsx) or when the tab regains focus.
  sessionOptions: { refetchInterval: 60, refetchOnWindowFocus: true },
  plugins: [
    emailOTPClient(),
    magicLinkClient(),
    passkeyClient(),
    oauthProviderClient(),
    inferAdditionalFields({
      user: { tenantId: { type: 'string' }, role: { type: 'string' }, active: { type: 'boolean' } },
    }),
  ],
});

/** An error answered by identity: Better Auth's `code` (e.g. INVALID_OTP) and message. */
export class AuthError extends Error {
  readonly code: string | undefined;
  readonly status: number;
  constructor(status: number, code: string | undefined, message: string | undefined) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/** identity's answer on /api/auth: the seed's envelope, with Better Auth's own code as `data.reason`. */
type Envelope = { message?: string; data?: { code?: string; reason?: string } };
type AnswerError = { status: number; code?: unknown; message?: string; error?: string | Envelope; error_description?: string };
type Answer<T> = { data: T | null; error: AnswerError | null };

/** What went wrong in a Better Auth client call, in the shape identity answers on the path called. */
export function authErrorOf(error: AnswerError): AuthError {
  // The envelope (sign-in, sessions, account); RFC 6749's {error, error_description} on the OAuth endpoints.
  if (typeof error.error === 'object' && error.error)
    return new AuthError(error.status, error.error.data?.reason ?? error.error.data?.code, error.error.message);
  const code = typeof error.code === 'string' ? error.code : error.error;
  return new AuthError(error.status, code, error.message ?? error.error_description);
}

/** The data of a Better Auth client call, or its error thrown (for TanStack Query). */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error } = await call;
  if (error) throw authErrorOf(error);
  return data as T;
}

const get = <T>(path: string) => unwrap<T>(authClient.$fetch<T>(path, { method: 'GET' }) as Promise<Answer<T>>);
const post = <T>(path: string, body: Record<string, unknown>) =>
  unwrap<T>(authClient.$fetch<T>(path, { method: 'POST', body }) as Promise<Answer<T>>);

/** Better Auth's client turns ISO date-times in answers into Dates. */
export type Timestamp = string | Date;

export interface AccountSession {
  id: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  expiresAt: Timestamp;
  ipAddress: string | null;
  userAgent: string | null;
  current: boolean;
}

export interface TenantUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  emailVerified: boolean;
  createdAt: Timestamp;
  /** null: never signed in (invited only). */
  lastSignInAt: Timestamp | null;
}

/** What an auditor may know of a colleague: no e-mail address. */
export interface TenantName {
  id: string;
  name: string;
  role: Role;
}

export interface PendingDeviceRequest {
  clientId: string;
  clientName: string | null;
  scope: string | null;
  userCodeHint: string;
  createdAt: Timestamp;
  expiresAt: Timestamp;
}

export interface OAuthClient {
  clientId: string;
  name: string | null;
  tenantId: string | null;
  scopes: string[];
  redirectUris: string[];
  grantTypes: string[];
  public: boolean;
  disabled: boolean;
  createdAt: Timestamp | null;
}

export interface RegistrationToken {
  token: string;
  tenantId: string;
  scopes: string[];
  expiresAt: Timestamp;
}

/** identity's answer to a registration (RFC 7591 §3.2.1), as far as the dashboard reads it. */
export interface RegisteredClient {
  client_id: string;
  client_name?: string;
  scope?: string;
}

export interface DeviceRequest {
  user_code: string;
  status: string;
  client_id?: string;
  scope?: string;
}

/** identity's account and tenant endpoints (services/identity: account-api.ts, oauth.ts). */
export const identity = {
  sessions: () => get<AccountSession[]>('/account/sessions'),
  revokeSession: (id: string) => post<{ status: boolean }>('/account/revoke-session', { id }),
  revokeOtherSessions: () => unwrap(authClient.revokeOtherSessions()),
  users: () => get<{ tenant: { id: string; name: string }; users: TenantUser[] }>('/tenant/users'),
  invite: (input: { email: string; role: Role; name?: string }) => post<{ user: TenantUser }>('/tenant/invite-user', input),
  changeRole: (userId: string, role: Role) => post<{ user: TenantUser }>('/tenant/change-role', { userId, role }),
  deactivate: (userId: string) => post<{ user: TenantUser; sessionsEnded: number }>('/tenant/deactivate-user', { userId }),
  reactivate: (userId: string) => post<{ user: TenantUser }>('/tenant/reactivate-user', { userId }),
  oauthClients: () => get<{ clients: OAuthClient[] }>('/tenant/oauth-clients'),
  issueRegistrationToken: (allowWrite: boolean, ttlSeconds: number) =>
    post<RegistrationToken>('/tenant/registration-tokens', { allowWrite, ttlSeconds }),
  /** RFC 7591 registration with the administrator's session (a backend service's metadata). */
  registerBackendService: (metadata: Record<string, unknown>) => post<RegisteredClient>('/oauth2/register', metadata),
  revokeOAuthClient: (clientId: string) => post<{ usersNotified: number }>('/tenant/revoke-oauth-client', { clientId }),
  deviceRequests: () => get<{ requests: PendingDeviceRequest[] }>('/tenant/device-requests'),
  names: () => get<{ users: TenantName[] }>('/tenant/names'),
  me: () => get<{ tenant: { id: string; name: string } }>('/account/me'),
  clientName: (clientId: string) =>
    get<{ clientId: string; name: string | null }>(`/account/oauth-client?clientId=${encodeURIComponent(clientId)}`),
  device: (userCode: string) => get<DeviceRequest>(`/device?user_code=${encodeURIComponent(userCode)}`),
  approveDevice: (userCode: string) => post<{ success: boolean }>('/device/approve', { userCode }),
  denyDevice: (userCode: string) => post<{ success: boolean }>('/device/deny', { userCode }),
  /** The answer to the authorization request in this page's query (the client plugin adds it). */
  consent: (accept: boolean, patient?: string) =>
    post<{ redirect?: boolean; url?: string }>('/oauth2/consent', { accept, ...(patient ? { patient } : {}) }),
};
