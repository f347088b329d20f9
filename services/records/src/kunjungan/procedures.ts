// The visit procedures (`kunjungan.*`) and the patient's clinical history (`klinis.riwayat`), mounted by
// the app router (server/router.ts). Visits themselves are administrative (clerks see them); starting
// and finishing a visit and the clinical history are need-to-know (clinicalProcedure).
import { z } from 'zod';
import { authorize } from '../access/index.ts';
import type { Permission } from '../access/index.ts';
import { builtOutput, clinicalProcedure, guardedProcedure, restMeta, router } from '../server/index.ts';
import { cancelInput, getInput, kunjunganOutput, listInput, registerInput, riwayatInput, timelinePage, transitionInput } from './schema.ts';
import { kunjunganStore } from './store.ts';
import { TIMELINE_KINDS, timeline } from './timeline.ts';
import { transitionStore } from './transitions.ts';

const CONFLICT = { 404: 'Visit not found', 409: 'Not allowed from its status, or changed meanwhile' };

export const kunjunganRouter = router({
  list: guardedProcedure('kunjungan.list')
    .meta(restMeta('GET', '/kunjungan', 'kunjungan', "Visits: a clinic's day in queue order, or a patient's visits"))
    .input(listInput)
    .output(builtOutput(z.array(kunjunganOutput)))
    .query(({ ctx, input }) => kunjunganStore(ctx.scope).list(input)),

  get: guardedProcedure('kunjungan.get')
    .meta(restMeta('GET', '/kunjungan/{id}', 'kunjungan', 'Read one visit with its status history', { 404: 'Visit not found' }))
    .input(getInput)
    .output(builtOutput(kunjunganOutput))
    .query(({ ctx, input }) => kunjunganStore(ctx.scope).get(input.id)),

  register: guardedProcedure('kunjungan.register')
    .meta(restMeta('POST', '/kunjungan', 'kunjungan', 'Register a visit at an active clinic (queue and visit numbers are generated)'))
    .input(registerInput)
    .output(builtOutput(kunjunganOutput))
    .mutation(({ ctx, input }) => kunjunganStore(ctx.scope).register(input)),

  arrive: guardedProcedure('kunjungan.arrive')
    .meta(restMeta('POST', '/kunjungan/{id}/arrive', 'kunjungan', 'The patient arrived (planned to arrived)', CONFLICT))
    .input(transitionInput)
    .output(builtOutput(kunjunganOutput))
    .mutation(({ ctx, input }) => transitionStore(ctx.scope).transition('arrive', input.id, input.expectedVersion)),

  start: clinicalProcedure('kunjungan.start', transitionInput, (input) => ({ kunjunganId: input.id }))
    .meta(restMeta('POST', '/kunjungan/{id}/start', 'kunjungan', 'Start the visit (arrived to in-progress)', CONFLICT))
    .output(builtOutput(kunjunganOutput))
    .mutation(({ ctx, input }) => transitionStore(ctx.scope).transition('start', input.id, input.expectedVersion)),

  finish: clinicalProcedure('kunjungan.finish', transitionInput, (input) => ({ kunjunganId: input.id }))
    .meta(restMeta('POST', '/kunjungan/{id}/finish', 'kunjungan', 'Finish the visit (needs a primary diagnosis)', CONFLICT))
    .output(builtOutput(kunjunganOutput))
    .mutation(({ ctx, input }) => transitionStore(ctx.scope).transition('finish', input.id, input.expectedVersion)),

  cancel: guardedProcedure('kunjungan.cancel')
    .meta(restMeta('POST', '/kunjungan/{id}/cancel', 'kunjungan', 'Cancel a planned or arrived visit, with a reason', CONFLICT))
    .input(cancelInput)
    .output(builtOutput(kunjunganOutput))
    .mutation(({ ctx, input }) => transitionStore(ctx.scope).transition('cancel', input.id, input.expectedVersion, input.reason)),
});

export const klinisRouter = router({
  riwayat: clinicalProcedure('klinis.riwayat', riwayatInput, (input) => ({ pasienId: input.pasienId }))
    .meta(
      restMeta(
        'GET',
        '/klinis/{pasienId}/riwayat',
        'klinis',
        "A patient's timeline: the visits newest first, each with its vital signs, diagnoses and note (need-to-know)",
        { 404: 'Patient not found' },
      ),
    )
    .output(builtOutput(timelinePage))
    .query(({ ctx, input }) => {
      // The timeline reaches several kinds: each comes only to a caller whose scope and role may read it alone.
      const kinds = TIMELINE_KINDS.filter((kind) => {
        const verdict = authorize(ctx.principal, `${kind}.read` satisfies Permission);
        return 'reach' in verdict && verdict.reach === 'all';
      });
      return timeline(ctx.scope, input, kinds);
    }),
});
