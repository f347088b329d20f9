// The records API: one tRPC router, served as tRPC under /trpc and as REST (trpc-to-openapi) under
// the integration prefix. It composes the domains' routers (pasien/procedures.ts, audit/procedures.ts);
// every procedure but healthCheck goes through guardedProcedure (principal, scope, role) and reaches
// data only through ctx.scope, the caller's tenant scope.
import { z } from 'zod';
import { auditRouter } from '../audit/index.ts';
import { btgRouter } from '../btg/index.ts';
import { alergiRouter, catatanRouter, diagnosisRouter, vitalRouter } from '../klinis/index.ts';
import { kodeRouter } from '../kode/index.ts';
import { klinisRouter, kunjunganRouter } from '../kunjungan/index.ts';
import { pasienRouter } from '../pasien/index.ts';
import { pengaturanRouter, poliRouter } from '../poli/index.ts';
import { satusehatRouter } from '../satusehat/index.ts';
import { publicProcedure, router } from './trpc.ts';

export const appRouter = router({
  /** Public liveness of the API surface as the seed defines it: `{"result":{"data":null}}`. */
  healthCheck: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/health',
        protect: false,
        tags: ['health'],
        summary: 'Health check (no credential needed)',
        errorResponses: { 503: 'Unavailable' },
      },
    })
    .input(z.void())
    .output(z.null())
    .query(() => null),

  pasien: pasienRouter,
  audit: auditRouter,
  poli: poliRouter,
  pengaturan: pengaturanRouter,
  kunjungan: kunjunganRouter,
  klinis: klinisRouter,
  btg: btgRouter,
  vital: vitalRouter,
  diagnosis: diagnosisRouter,
  alergi: alergiRouter,
  catatan: catatanRouter,
  kode: kodeRouter,
  satusehat: satusehatRouter,
});

export type AppRouter = typeof appRouter;
