// The patient procedures (`pasien.*`), mounted by the app router (server/router.ts).
import { builtOutput, GUARDED_ERRORS, guardedProcedure, router } from '../server/index.ts';
import {
  archivePasienInput,
  createPasienInput,
  getPasienInput,
  listPasienInput,
  pasienOutput,
  pasienPage,
  updatePasienInput,
} from './schema.ts';
import { pasienStore } from './store.ts';

export const pasienRouter = router({
  list: guardedProcedure('pasien.list')
    .meta({
      openapi: {
        method: 'GET',
        path: '/pasien',
        tags: ['pasien'],
        summary: 'List and search patients',
        description:
          'Keyset pagination: pass `nextCursor` back as `cursor`. `q` finds patients with a word of the name starting with it; `noRm`, `nik` and `tanggalLahir` match exactly.',
        errorResponses: GUARDED_ERRORS,
      },
    })
    .input(listPasienInput)
    .output(builtOutput(pasienPage))
    .query(({ ctx, input }) => pasienStore(ctx.scope).listPasien(input)),

  get: guardedProcedure('pasien.get')
    .meta({
      openapi: {
        method: 'GET',
        path: '/pasien/{id}',
        tags: ['pasien'],
        summary: 'Read one patient',
        errorResponses: { ...GUARDED_ERRORS, 404: 'Patient not found' },
      },
    })
    .input(getPasienInput)
    .output(builtOutput(pasienOutput))
    .query(({ ctx, input }) => pasienStore(ctx.scope).getPasien(input.id)),

  create: guardedProcedure('pasien.create')
    .meta({
      openapi: {
        method: 'POST',
        path: '/pasien',
        tags: ['pasien'],
        summary: 'Register a patient (the medical record number is generated)',
        errorResponses: { ...GUARDED_ERRORS, 409: 'NIK already registered in this hospital', 413: 'Body too large' },
      },
    })
    .input(createPasienInput)
    .output(builtOutput(pasienOutput))
    .mutation(({ ctx, input }) => pasienStore(ctx.scope).createPasien(input)),

  update: guardedProcedure('pasien.update')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/pasien/{id}',
        tags: ['pasien'],
        summary: 'Correct a patient record (only the fields given change)',
        errorResponses: {
          ...GUARDED_ERRORS,
          404: 'Patient not found',
          409: 'NIK taken, patient archived or changed meanwhile',
          413: 'Body too large',
        },
      },
    })
    .input(updatePasienInput)
    .output(builtOutput(pasienOutput))
    .mutation(({ ctx, input }) => pasienStore(ctx.scope).updatePasien(input)),

  archive: guardedProcedure('pasien.archive')
    .meta({
      openapi: {
        method: 'POST',
        path: '/pasien/{id}/archive',
        tags: ['pasien'],
        summary: 'Archive a patient (kept, hidden from the default listing, no longer editable)',
        errorResponses: { ...GUARDED_ERRORS, 404: 'Patient not found', 409: 'Already archived' },
      },
    })
    .input(archivePasienInput)
    .output(builtOutput(pasienOutput))
    .mutation(({ ctx, input }) => pasienStore(ctx.scope).archivePasien(input.id, input.reason)),
});
