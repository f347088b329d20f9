// The clinic procedures (`poli.*`) and the hospital's access settings (`pengaturan.*`), mounted by the
// app router (server/router.ts).
import { z } from 'zod';
import { guardedProcedure, restMeta, router } from '../server/index.ts';
import {
  assignInput,
  createPoliInput,
  listPoliInput,
  poliOutput,
  settingsOutput,
  staffInput,
  staffOutput,
  updatePoliInput,
  updateSettingsInput,
} from './schema.ts';
import { settingsStore } from './settings.ts';
import { poliStore } from './store.ts';

const openapi = (method: 'GET' | 'POST' | 'PATCH', path: `/${string}`, summary: string, errors: Record<number, string> = {}) =>
  restMeta(method, path, 'poli', summary, errors);

export const poliRouter = router({
  list: guardedProcedure('poli.list')
    .meta(openapi('GET', '/poli', 'List the clinics (active ones unless includeInactive)'))
    .input(listPoliInput)
    .output(z.array(poliOutput))
    .query(({ ctx, input }) => poliStore(ctx.scope).listPoli(input.includeInactive)),

  staff: guardedProcedure('poli.staff')
    .meta(openapi('GET', '/poli/staff', 'Which clinicians are assigned to which clinics'))
    .input(staffInput)
    .output(z.array(staffOutput))
    .query(({ ctx, input }) => poliStore(ctx.scope).listStaff(input)),

  create: guardedProcedure('poli.create')
    .meta(openapi('POST', '/poli', 'Create a clinic', { 409: 'A clinic with this kode exists' }))
    .input(createPoliInput)
    .output(poliOutput)
    .mutation(({ ctx, input }) => poliStore(ctx.scope).createPoli(input)),

  update: guardedProcedure('poli.update')
    .meta(
      openapi('PATCH', '/poli/{id}', 'Rename, deactivate or reactivate a clinic', { 404: 'Clinic not found', 409: 'Changed meanwhile' }),
    )
    .input(updatePoliInput)
    .output(poliOutput)
    .mutation(({ ctx, input }) => poliStore(ctx.scope).updatePoli(input)),

  assign: guardedProcedure('poli.assign')
    .meta(openapi('POST', '/poli/{poliId}/assign', 'Assign a clinician to a clinic', { 404: 'Clinic not found' }))
    .input(assignInput)
    .output(staffOutput)
    .mutation(({ ctx, input }) => poliStore(ctx.scope).assign(input.poliId, input.userId)),

  unassign: guardedProcedure('poli.unassign')
    .meta(openapi('POST', '/poli/{poliId}/unassign', 'Take a clinician off a clinic', { 404: 'Not assigned' }))
    .input(assignInput)
    .output(staffOutput)
    .mutation(({ ctx, input }) => poliStore(ctx.scope).unassign(input.poliId, input.userId)),
});

export const pengaturanRouter = router({
  get: guardedProcedure('pengaturan.get')
    .meta(openapi('GET', '/pengaturan', "The hospital's access settings"))
    .input(z.strictObject({}).optional())
    .output(settingsOutput)
    .query(({ ctx }) => settingsStore(ctx.scope).getSettings()),

  update: guardedProcedure('pengaturan.update')
    .meta(openapi('PATCH', '/pengaturan', 'Change the treatment-relationship window, break-the-glass duration, organization id'))
    .input(updateSettingsInput)
    .output(settingsOutput)
    .mutation(({ ctx, input }) => settingsStore(ctx.scope).updateSettings(input)),
});
