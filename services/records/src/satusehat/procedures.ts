// The SATUSEHAT procedures (`satusehat.*`), mounted by the app router: the hospital admin's connection
// (set, test; the secret never answered), practitioners' NIKs, the list of visits that failed or are
// incomplete with their reasons, resending one after a fix; and a visit's sync state for the visit page.
import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import type { TenantDb } from '../db/index.ts';
import { builtOutput, guardedProcedure, restMeta, router } from '../server/index.ts';
import { PlatformRefused, PlatformUnavailable, requestToken } from './platform.ts';
import { satusehatRuntime } from './runtime.ts';
import { connectionInput, connectionOutput, listInput, outboxOutput, practitionerInput, testOutput, visitInput } from './schema.ts';
import { satusehatStore } from './store.ts';
import type { StoredConnection } from './store.ts';
import { Incomplete } from './send.ts';
import { connectionOf } from './worker.ts';

const openapi = (method: 'GET' | 'POST', path: `/${string}`, summary: string, errors: Record<number, string> = {}) =>
  restMeta(method, path, 'satusehat', summary, errors);

const shown = (c: StoredConnection | undefined) => ({
  configured: c !== undefined,
  environment: c?.environment ?? null,
  clientId: c?.clientId ?? null,
  updatedAt: c?.updatedAt ?? null,
  updatedBy: c?.updatedBy ?? null,
});

const storeOf = (scope: { db: TenantDb }) => satusehatStore(scope.db, satusehatRuntime().sealKey);

export const satusehatRouter = router({
  connection: guardedProcedure('satusehat.connection')
    .meta(openapi('GET', '/satusehat/connection', "The hospital's SATUSEHAT connection (never its secret)"))
    .input(z.void())
    .output(builtOutput(connectionOutput))
    .query(async ({ ctx }) => shown(await storeOf(ctx.scope).connection())),

  connect: guardedProcedure('satusehat.connect')
    .meta(openapi('POST', '/satusehat/connection', 'Set the client id, the client secret (sealed, never shown again) and the environment'))
    .input(connectionInput)
    .output(builtOutput(connectionOutput))
    .mutation(async ({ ctx, input }) => {
      const saved = await storeOf(ctx.scope).setConnection(input, ctx.scope.actor.userId);
      await satusehatRuntime().platform?.forget({ tenantId: ctx.scope.db.tenantId, clientId: input.clientId });
      return shown(saved);
    }),

  test: guardedProcedure('satusehat.test')
    .meta(
      openapi(
        'POST',
        '/satusehat/connection/test',
        "Ask SATUSEHAT for a token with the saved credentials: success or the platform's words",
      ),
    )
    .input(z.void())
    .output(builtOutput(testOutput))
    .mutation(async ({ ctx }) => {
      const { config } = satusehatRuntime();
      try {
        const c = await connectionOf(ctx.scope, storeOf(ctx.scope), config);
        await requestToken(c, config.SATUSEHAT_TIMEOUT_MS);
        return { ok: true, message: 'SATUSEHAT accepted the credentials' };
      } catch (err) {
        if (err instanceof Incomplete || err instanceof PlatformRefused || err instanceof PlatformUnavailable)
          return { ok: false, message: err.message };
        throw err;
      }
    }),

  practitioner: guardedProcedure('satusehat.practitioner')
    .meta(openapi('POST', '/satusehat/practitioner', "Set a practitioner's NIK (SATUSEHAT knows practitioners by it)"))
    .input(practitionerInput)
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await storeOf(ctx.scope).setPractitionerNik(input.userId, input.nik, ctx.scope.actor.userId);
      return null;
    }),

  list: guardedProcedure('satusehat.list')
    .meta(openapi('GET', '/satusehat/outbox', "Each visit's latest send, newest first; state narrows (failed, incomplete, ...)"))
    .input(listInput)
    .output(builtOutput(z.array(outboxOutput)))
    .query(({ ctx, input }) => storeOf(ctx.scope).list(input)),

  status: guardedProcedure('satusehat.status')
    .meta(openapi('GET', '/satusehat/visit/{kunjunganId}', "A visit's sync state (null: never queued)"))
    .input(visitInput)
    .output(builtOutput(outboxOutput.nullable()))
    .query(async ({ ctx, input }) => (await storeOf(ctx.scope).latestFor(input.kunjunganId)) ?? null),

  resend: guardedProcedure('satusehat.resend')
    .meta(
      openapi('POST', '/satusehat/visit/{kunjunganId}/resend', 'Queue a finished visit again after a fix', { 404: 'No finished visit' }),
    )
    .input(visitInput)
    .output(builtOutput(outboxOutput))
    .mutation(async ({ ctx, input }) => {
      const row = await storeOf(ctx.scope).resend(input.kunjunganId);
      if (!row) throw new TRPCError({ code: 'NOT_FOUND', message: 'no finished visit with this id' });
      return row;
    }),
});
