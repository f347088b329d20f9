// A tenant's integrations as its administrators manage them, over Better Auth's oauth-provider and
// device-authorization tables: revoking a client with everything it was granted, and the device codes
// still waiting for someone's approval. Always scoped to the tenant the client was registered for
// ("referenceId"), so an administrator never reaches another hospital's clients.
import type { Pool } from '@simrs/platform/db';

export interface PendingDeviceRequest {
  clientId: string;
  clientName: string | null;
  scope: string | null;
  /** The first characters of the user code only: enough to match it with a screen, not to approve it. */
  userCodeHint: string;
  createdAt: Date;
  expiresAt: Date;
}

export function createIntegrations(pool: Pool, deviceCodeTtlSeconds: number) {
  return {
    /**
     * Disables the client (it can obtain nothing more) and deletes its refresh tokens, stored access
     * tokens, consents and device codes, in one transaction. False when the tenant has no such client.
     * Its JWT access tokens cannot be deleted; the caller tells the gateway to refuse them.
     */
    async revokeClient(tenantId: string, clientId: string): Promise<boolean> {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const found = await client.query(
          `update "oauthClient" set disabled = true, "updatedAt" = now() where "clientId" = $1 and "referenceId" = $2`,
          [clientId, tenantId],
        );
        if (found.rowCount !== 1) {
          await client.query('rollback');
          return false;
        }
        for (const table of ['oauthAccessToken', 'oauthRefreshToken', 'oauthConsent', 'deviceCode'])
          await client.query(`delete from "${table}" where "clientId" = $1`, [clientId]);
        await client.query('commit');
        return true;
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },

    /** Device codes of the tenant's clients that nobody approved or denied yet and that have not expired. */
    async pendingDeviceRequests(tenantId: string): Promise<PendingDeviceRequest[]> {
      const { rows } = await pool.query<{
        clientId: string;
        clientName: string | null;
        scope: string | null;
        userCode: string;
        expiresAt: Date;
      }>(
        `select d."clientId", c.name as "clientName", d.scope, d."userCode", d."expiresAt"
           from "deviceCode" d join "oauthClient" c on c."clientId" = d."clientId"
          where c."referenceId" = $1 and d.status = 'pending' and d."expiresAt" > now()
          order by d."expiresAt" desc
          limit 200`,
        [tenantId],
      );
      return rows.map((r) => ({
        clientId: r.clientId,
        clientName: r.clientName,
        scope: r.scope,
        userCodeHint: `${r.userCode.slice(0, 2)}…`,
        // Better Auth keeps no creation time for a device code; every code lives the configured TTL.
        createdAt: new Date(new Date(r.expiresAt).getTime() - deviceCodeTtlSeconds * 1000),
        expiresAt: r.expiresAt,
      }));
    },
  };
}

export type Integrations = ReturnType<typeof createIntegrations>;
