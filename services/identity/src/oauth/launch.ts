// SMART App Launch v2 standalone launch: the patient context. A client that asks for `launch/patient`
// always gets the consent page, where the user picks one patient of the hospital (the dashboard's
// patient picker searches through records' `pasien.list` with the user's own session). The choice
// is kept per grant (keyed by the stored id of the authorization code, which every refresh token of
// the grant carries: grants.ts), so every access token issued from that grant, after any number of
// refreshes, names the patient (PATIENT_CLAIM) and the token response carries it as `patient`.
//
// identity cannot see records' data, so it cannot check that the id is one of the hospital's patients:
// it takes only a well-formed FHIR Patient id, and records' row-level security (the token's tenant,
// never the patient id, decides which rows exist) makes a forged id of another hospital reach nothing.
import type { BetterAuthPlugin } from 'better-auth';
import { LAUNCH_PATIENT_SCOPE } from '@simrs/contracts/smart';
import type { Keys } from '../keys/index.ts';
import type { Ctx } from '../signin/index.ts';
import { hashOAuthToken, isPlainObject, oauthError } from './tokens.ts';

const MODEL = 'oauthLaunchPatient';

/** The table Better Auth's migrator creates for it (with the simrs-oauth plugin): one row per grant. */
export const launchSchema = {
  [MODEL]: {
    fields: {
      /** The stored id of the grant's authorization code (a keyed hash, never the code). */
      grantOrigin: { type: 'string', required: true, unique: true },
      patientId: { type: 'string', required: true },
      /** Moved on at each refresh: the row lives as long as the grant can. */
      expiresAt: { type: 'date', required: true, index: true },
    },
  },
} satisfies NonNullable<BetterAuthPlugin['schema']>;

interface LaunchRow {
  id: string;
  grantOrigin: string;
  patientId: string;
  expiresAt: Date;
}

/** A FHIR Patient id as records issues them (UUIDs); anything else cannot name a patient. */
const PATIENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const scopesOf = (value: unknown) => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

export const asksForLaunchPatient = (scope: unknown) => scopesOf(scope).includes(LAUNCH_PATIENT_SCOPE);

export function createLaunch(deps: { keys: Keys; grantTtlSeconds: number }) {
  const { keys } = deps;
  const expiry = () => new Date(Date.now() + deps.grantTtlSeconds * 1000);

  return {
    /**
     * At authorize: `launch/patient` always goes through the consent page, whatever consent was given
     * before (each launch picks its patient). `prompt=none` cannot pick one: the answer says why.
     */
    authorizeParams(params: Record<string, unknown>): { refused?: string } {
      if (!asksForLaunchPatient(params.scope)) return {};
      const prompt = scopesOf(params.prompt);
      if (prompt.includes('none')) return { refused: 'launch/patient needs the user to choose a patient: prompt=none cannot' };
      if (!prompt.includes('consent')) params.prompt = [...prompt, 'consent'].join(' ');
      return {};
    },

    /**
     * At consent: when the accepted scopes include `launch/patient`, the body must name the chosen
     * patient (`patient`); the id, lower-cased, or undefined when no patient is asked for.
     */
    chosenPatient(body: Record<string, unknown>): string | undefined {
      const requested = new URLSearchParams(typeof body.oauth_query === 'string' ? body.oauth_query : '').get('scope');
      const accepted = body.scope === undefined ? requested : body.scope;
      if (!asksForLaunchPatient(accepted)) return undefined;
      const patient = body.patient;
      if (typeof patient !== 'string' || !patient)
        throw oauthError('BAD_REQUEST', 'invalid_request', 'Choose the patient this application may work with.');
      if (!PATIENT_ID.test(patient)) throw oauthError('BAD_REQUEST', 'invalid_request', 'patient is not a patient id');
      return patient.toLowerCase();
    },

    /** After consent: the code in the answer starts a grant; its patient is kept under the code's stored id. */
    async remember(ctx: Ctx, patientId: string): Promise<void> {
      const returned = ctx.context.returned;
      const url = isPlainObject(returned) && typeof returned.url === 'string' ? returned.url : undefined;
      const code = url && URL.canParse(url) ? new URL(url).searchParams.get('code') : null;
      if (!code) return; // denied, or sent elsewhere (sign-in again): no grant, nothing to keep
      const adapter = ctx.context.adapter;
      // Codes never redeemed and grants long ended leave rows behind; each new launch sweeps them.
      await adapter.deleteMany({ model: MODEL, where: [{ field: 'expiresAt', operator: 'lt', value: new Date() }] });
      await adapter.create({
        model: MODEL,
        data: { grantOrigin: hashOAuthToken(keys, code, 'authorization_code'), patientId, expiresAt: expiry() },
      });
    },

    /** The launch patient of a grant (by its origin), for the access token; a refresh moves the row's expiry on. */
    async patientOf(ctx: Ctx, origin: string | undefined, scopes: readonly string[]): Promise<string | undefined> {
      if (!origin || !scopes.includes(LAUNCH_PATIENT_SCOPE)) return undefined;
      const where = [{ field: 'grantOrigin', value: origin }];
      const row = await ctx.context.adapter.findOne<LaunchRow>({ model: MODEL, where });
      if (!row || new Date(row.expiresAt).getTime() < Date.now()) return undefined;
      const body = isPlainObject(ctx.body) ? ctx.body : {};
      if (body.grant_type === 'refresh_token') await ctx.context.adapter.update({ model: MODEL, where, update: { expiresAt: expiry() } });
      return row.patientId;
    },
  };
}

export type Launch = ReturnType<typeof createLaunch>;
