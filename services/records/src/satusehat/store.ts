// SATUSEHAT's tables under the hospital's row-level security: the connection (its secret sealed before
// it is stored and opened only to send), the practitioners' NIKs, the platform's ids we keep, and the
// outbox rows (their outcome recorded only by the worker holding the row's claim).
import { deriveKey, open, seal } from '@simrs/platform/seal';
import type { TenantDb } from '../db/index.ts';

export type OutboxState = 'queued' | 'sent' | 'failed' | 'incomplete';
export type RemoteKind = 'patient' | 'practitioner' | 'location' | 'encounter' | 'condition' | 'observation';
export type Environment = 'staging' | 'production';

export interface StoredConnection {
  environment: Environment;
  clientId: string;
  updatedAt: string;
  updatedBy: string;
}

export interface OutboxRow {
  id: number;
  kunjunganId: string;
  noKunjungan: string;
  tanggal: string;
  reason: string;
  state: OutboxState;
  attempts: number;
  lastError: string | null;
  nextAt: string;
  updatedAt: string;
  sentAt: string | null;
}

/** The key that seals client secrets and cached tokens: its own, or derived from PRINCIPAL_SECRET for this purpose only. */
export const sealKeyFrom = (config: { SATUSEHAT_SEAL_SECRET?: string | undefined; PRINCIPAL_SECRET: string }) =>
  deriveKey(config.SATUSEHAT_SEAL_SECRET ?? config.PRINCIPAL_SECRET, 'simrs-records', 'satusehat-secret/v1');

const secretContext = (tenantId: string) => `records.satusehat_connection:${tenantId}`;

const OUTBOX_COLUMNS = `o.id::int as id, o.kunjungan_id::text as "kunjunganId", k.no_kunjungan as "noKunjungan", k.tanggal::text as tanggal,
  o.reason, o.state, o.attempts, o.last_error as "lastError", o.next_at as "nextAt", o.updated_at as "updatedAt", o.sent_at as "sentAt"`;

/** The hospital's connection and the practitioners' NIKs. */
function connectionStore(db: TenantDb, sealKey: Buffer) {
  return {
    async connection(): Promise<StoredConnection | undefined> {
      const [row] = await db.one<StoredConnection>(
        `select environment, client_id as "clientId", updated_at as "updatedAt", updated_by as "updatedBy" from records.satusehat_connection`,
      );
      return row;
    },

    /** The client secret in clear, for the one request that needs it. */
    async credentials(): Promise<{ environment: Environment; clientId: string; clientSecret: string } | undefined> {
      const [row] = await db.one<{ environment: Environment; client_id: string; secret_sealed: string }>(
        'select environment, client_id, secret_sealed from records.satusehat_connection',
      );
      if (!row) return undefined;
      const clientSecret = open(sealKey, row.secret_sealed, secretContext(db.tenantId));
      if (clientSecret === undefined) throw new Error('the SATUSEHAT client secret cannot be opened with this SATUSEHAT_SEAL_SECRET');
      return { environment: row.environment, clientId: row.client_id, clientSecret };
    },

    async setConnection(
      input: { environment: Environment; clientId: string; clientSecret: string },
      userId: string,
    ): Promise<StoredConnection> {
      const sealed = seal(sealKey, input.clientSecret, secretContext(db.tenantId));
      const [row] = await db.one<StoredConnection>(
        `insert into records.satusehat_connection as c (environment, client_id, secret_sealed, updated_by) values ($1, $2, $3, $4)
         on conflict (tenant_id) do update set environment = excluded.environment, client_id = excluded.client_id,
           secret_sealed = excluded.secret_sealed, updated_at = now(), updated_by = excluded.updated_by
         returning environment, client_id as "clientId", updated_at as "updatedAt", updated_by as "updatedBy"`,
        [input.environment, input.clientId, sealed, userId],
      );
      return row!;
    },

    async practitionerNik(userId: string): Promise<string | undefined> {
      const [row] = await db.one<{ nik: string }>('select nik from records.satusehat_practitioner where user_id = $1', [userId]);
      return row?.nik;
    },

    async setPractitionerNik(userId: string, nik: string, by: string): Promise<void> {
      await db.one(
        `insert into records.satusehat_practitioner as p (user_id, nik, updated_by) values ($1, $2, $3)
         on conflict (tenant_id, user_id) do update set nik = excluded.nik, updated_at = now(), updated_by = excluded.updated_by`,
        [userId, nik, by],
      );
    },

    /** The platform's ids known for these local ids, by `kind:localId`. */
  };
}

/** The platform's ids we keep and the outbox rows. */
function outboxStore(db: TenantDb) {
  const latestFor = async (kunjunganId: string): Promise<OutboxRow | undefined> => {
    const [row] = await db.one<OutboxRow>(
      `select ${OUTBOX_COLUMNS} from records.satusehat_outbox o join records.kunjungan k on k.id = o.kunjungan_id
       where o.kunjungan_id = $1::uuid order by o.id desc limit 1`,
      [kunjunganId],
    );
    return row;
  };
  return {
    /** The visit's latest send, if it was ever queued. */
    latestFor,

    async remoteIds(localIds: string[]): Promise<Map<string, string>> {
      const rows = await db.one<{ kind: string; local_id: string; remote_id: string }>(
        'select kind, local_id, remote_id from records.satusehat_ihs where local_id = any($1::text[])',
        [localIds],
      );
      return new Map(rows.map((r) => [`${r.kind}:${r.local_id}`, r.remote_id]));
    },

    async keepRemote(kind: RemoteKind, localId: string, remoteId: string): Promise<void> {
      await db.one(
        `insert into records.satusehat_ihs (kind, local_id, remote_id) values ($1, $2, $3)
         on conflict (tenant_id, kind, local_id) do update set remote_id = excluded.remote_id`,
        [kind, localId, remoteId],
      );
    },

    /** Records a send's outcome, only while `claim` is still the row's (a worker whose lease lapsed records nothing). */
    async record(id: number, claim: string, outcome: { state: OutboxState; error?: string; retryInMs?: number }): Promise<boolean> {
      const rows = await db.one(
        `update records.satusehat_outbox set state = $3, last_error = $4, locked_until = null, claim = null, updated_at = now(),
           next_at = now() + make_interval(secs => $5::numeric / 1000), sent_at = case when $3 = 'sent' then now() else sent_at end
         where id = $1 and claim = $2::uuid returning id`,
        [id, claim, outcome.state, outcome.error ?? null, outcome.retryInMs ?? 0],
      );
      return rows.length === 1;
    },

    /** The latest send of each visit, newest first; `state` narrows them. */
    async list(filter: { state?: OutboxState | undefined; limit: number }): Promise<OutboxRow[]> {
      return db.one<OutboxRow>(
        `select * from (select distinct on (o.kunjungan_id) ${OUTBOX_COLUMNS}
           from records.satusehat_outbox o join records.kunjungan k on k.id = o.kunjungan_id
           order by o.kunjungan_id, o.id desc) latest
         where $1::text is null or state = $1 order by id desc limit $2`,
        [filter.state ?? null, filter.limit],
      );
    },

    /** Queues a finished visit again (after a fix); a visit already queued stays as it is. */
    async resend(kunjunganId: string): Promise<OutboxRow | undefined> {
      await db.one(
        `insert into records.satusehat_outbox (kunjungan_id, reason)
         select k.id, 'resend' from records.kunjungan k where k.id = $1::uuid and k.status = 'finished'
           and not exists (select 1 from records.satusehat_outbox o where o.kunjungan_id = k.id and o.state = 'queued')`,
        [kunjunganId],
      );
      return latestFor(kunjunganId);
    },
  };
}
export const satusehatStore = (db: TenantDb, sealKey: Buffer) => ({ ...connectionStore(db, sealKey), ...outboxStore(db) });
export type SatusehatStore = ReturnType<typeof satusehatStore>;
