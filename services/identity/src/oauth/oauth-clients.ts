// OAuth clients and grants as identity's own code reads them (Better Auth's oauth-provider tables in
// Postgres): a client's name, tenant and scopes for the consent and device pages, a tenant's clients
// for its administrators, and ending every grant of a user who is deactivated.
import type { Pool } from '@simrs/platform/db';
import { idTokenAlgOf } from './id-tokens.ts';
import type { IdTokenAlg } from './id-tokens.ts';
import { requiresPar } from './par.ts';

export interface OAuthClientInfo {
  clientId: string;
  name: string | null;
  /** The tenant the client belongs to (set at registration). */
  tenantId: string | null;
  scopes: string[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  /** Registered with require_pushed_authorization_requests (RFC 9126 §6). */
  requiresPar: boolean;
  /** The algorithm of its ID tokens (id_token_signed_response_alg; RS256 unless it chose another). */
  idTokenAlg: IdTokenAlg;
  grantTypes: string[];
  public: boolean;
  disabled: boolean;
  createdAt: Date | null;
}

const COLUMNS = `"clientId", name, "referenceId", scopes, "redirectUris", "postLogoutRedirectUris", metadata, "grantTypes", "tokenEndpointAuthMethod", disabled, "createdAt"`;

interface Row {
  clientId: string;
  name: string | null;
  referenceId: string | null;
  scopes: unknown;
  redirectUris: unknown;
  postLogoutRedirectUris: unknown;
  metadata: unknown;
  grantTypes: unknown;
  tokenEndpointAuthMethod: string | null;
  disabled: boolean | null;
  createdAt: Date | null;
}

const strings = (value: unknown): string[] => {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
};

function toInfo(row: Row): OAuthClientInfo {
  return {
    clientId: row.clientId,
    name: row.name,
    tenantId: row.referenceId,
    scopes: strings(row.scopes),
    redirectUris: strings(row.redirectUris),
    postLogoutRedirectUris: strings(row.postLogoutRedirectUris),
    requiresPar: requiresPar(row.metadata),
    idTokenAlg: idTokenAlgOf(row.metadata),
    grantTypes: strings(row.grantTypes),
    public: row.tokenEndpointAuthMethod === 'none',
    disabled: row.disabled === true,
    createdAt: row.createdAt,
  };
}

export function createOAuthClients(pool: Pool) {
  return {
    async find(clientId: string): Promise<OAuthClientInfo | undefined> {
      const { rows } = await pool.query<Row>(`select ${COLUMNS} from "oauthClient" where "clientId" = $1`, [clientId]);
      return rows[0] ? toInfo(rows[0]) : undefined;
    },

    /** The JWKS URL a key-based client registered; null when its keys were registered inline. */
    async jwksUri(clientId: string): Promise<string | null | undefined> {
      const { rows } = await pool.query<{ jwksUri: string | null }>(`select "jwksUri" from "oauthClient" where "clientId" = $1`, [
        clientId,
      ]);
      return rows[0] ? rows[0].jwksUri : undefined;
    },

    async listForTenant(tenantId: string): Promise<OAuthClientInfo[]> {
      const { rows } = await pool.query<Row>(`select ${COLUMNS} from "oauthClient" where "referenceId" = $1 order by "createdAt"`, [
        tenantId,
      ]);
      return rows.map(toInfo);
    },

    /**
     * What SIMRS decides for a client it just registered: its scopes, that it may end the sessions it
     * started (RP-initiated logout), and what it chose of what SIMRS adds to the registration metadata
     * (its ID token algorithm, PAR required), kept in the client's metadata.
     */
    async completeRegistration(
      clientId: string,
      scopes: string[],
      metadata: Record<string, unknown>,
      clientCredentialsScopes: string[] = [],
    ): Promise<void> {
      // Better Auth's dynamic registration leaves the client-credentials ceiling empty (only its
      // session-bound admin endpoint sets it); a backend service's is the system/ scopes it registered.
      await pool.query(
        `update "oauthClient" set scopes = $2::jsonb, "enableEndSession" = true, "clientCredentialsScopes" = $4::jsonb,
           metadata = coalesce(metadata, '{}'::jsonb) || $3::jsonb, "updatedAt" = now() where "clientId" = $1`,
        [clientId, JSON.stringify(scopes), JSON.stringify(metadata), JSON.stringify(clientCredentialsScopes)],
      );
    },

    /** Deletes every refresh token, stored access token and pending device code of the user. */
    async revokeUserGrants(userId: string): Promise<number> {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query(`delete from "oauthAccessToken" where "userId" = $1`, [userId]);
        const refresh = await client.query(`delete from "oauthRefreshToken" where "userId" = $1`, [userId]);
        await client.query(`delete from "deviceCode" where "userId" = $1`, [userId]);
        await client.query('commit');
        return refresh.rowCount ?? 0;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

export type OAuthClients = ReturnType<typeof createOAuthClients>;
