// The records API: one tRPC router, served as tRPC under /trpc and as REST (trpc-to-openapi) under
// the integration prefix. Every procedure but healthCheck goes through guardedProcedure (principal,
// scope, role) and reaches data only through ctx.store, the tenant-scoped data access object.
import { z } from 'zod';
import { archivePasienInput, createPasienInput, getPasienInput, listPasienInput, pasienOutput, pasienPage, updatePasienInput } from './pasien.ts';
import { auditEntry, auditListInput } from './store.ts';
import { guardedProcedure, publicProcedure, router } from './trpc.ts';

const ERRORS = { 400: 'Invalid input', 401: 'No valid credential', 403: 'Missing scope or role permission', 503: 'Database unavailable' };

export const appRouter = router({
  /** Public liveness of the API surface as the seed defines it: `{"result":{"data":null}}`. */
  healthCheck: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/health', protect: false, tags: ['health'], summary: 'Health check (no credential needed)', errorResponses: { 503: 'Unavailable' } } })
    .input(z.void())
    .output(z.null())
    .query(() => null),

  pasien: router({
    list: guardedProcedure('pasien.list')
      .meta({
        openapi: {
          method: 'GET',
          path: '/pasien',
          tags: ['pasien'],
          summary: 'List and search patients',
          description: 'Keyset pagination: pass `nextCursor` back as `cursor`. `q` finds patients with a word of the name starting with it; `noRm`, `nik` and `tanggalLahir` match exactly.',
          errorResponses: ERRORS,
        },
      })
      .input(listPasienInput)
      .output(pasienPage)
      .query(({ ctx, input }) => ctx.store.listPasien(input)),

    get: guardedProcedure('pasien.get')
      .meta({ openapi: { method: 'GET', path: '/pasien/{id}', tags: ['pasien'], summary: 'Read one patient', errorResponses: { ...ERRORS, 404: 'Patient not found' } } })
      .input(getPasienInput)
      .output(pasienOutput)
      .query(({ ctx, input }) => ctx.store.getPasien(input.id)),

    create: guardedProcedure('pasien.create')
      .meta({
        openapi: {
          method: 'POST',
          path: '/pasien',
          tags: ['pasien'],
          summary: 'Register a patient (the medical record number is generated)',
          errorResponses: { ...ERRORS, 409: 'NIK already registered in this hospital', 413: 'Body too large' },
        },
      })
      .input(createPasienInput)
      .output(pasienOutput)
      .mutation(({ ctx, input }) => ctx.store.createPasien(input)),

    update: guardedProcedure('pasien.update')
      .meta({
        openapi: {
          method: 'PATCH',
          path: '/pasien/{id}',
          tags: ['pasien'],
          summary: 'Correct a patient record (only the fields given change)',
          errorResponses: { ...ERRORS, 404: 'Patient not found', 409: 'NIK taken, patient archived or changed meanwhile', 413: 'Body too large' },
        },
      })
      .input(updatePasienInput)
      .output(pasienOutput)
      .mutation(({ ctx, input }) => ctx.store.updatePasien(input)),

    archive: guardedProcedure('pasien.archive')
      .meta({
        openapi: {
          method: 'POST',
          path: '/pasien/{id}/archive',
          tags: ['pasien'],
          summary: 'Archive a patient (kept, hidden from the default listing, no longer editable)',
          errorResponses: { ...ERRORS, 404: 'Patient not found', 409: 'Already archived' },
        },
      })
      .input(archivePasienInput)
      .output(pasienOutput)
      .mutation(({ ctx, input }) => ctx.store.archivePasien(input.id, input.reason)),
  }),

  audit: router({
    list: guardedProcedure('audit.list')
      .meta({ openapi: { method: 'GET', path: '/audit', tags: ['audit'], summary: 'Read the audit trail (newest first)', errorResponses: ERRORS } })
      .input(auditListInput)
      .output(z.object({ items: z.array(auditEntry), nextCursor: z.string().nullable() }))
      .query(({ ctx, input }) => ctx.store.listAudit(input)),
  }),
});

export type AppRouter = typeof appRouter;
