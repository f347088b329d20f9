// What test/dashboard.test.ts, test/dashboard-patients.test.ts and test/dashboard-admin.test.ts share:
// each runs its own stack (startDashboardWorld) with one person per role and a midwife, 25 patients
// registered by the administrator, and sign-in limits raised for the many sign-ins of a file, hooked to
// the file by `useDashboardStack`. The stack's parts are exported as live bindings, set by that hook,
// so that the three files' tests read `stack`, `smtp` and `adminCookie` as the names they are.
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { Stack } from '../../scripts/lib/stack.ts';
import { tabTo as tabToAtMost } from './browser.ts';
import { openContext, registerPatients, STAFF, startDashboardWorld, TENANT, USERS } from './dashboard.ts';
import type { DashboardWorld } from './dashboard.ts';
import { signInWithOtp } from './users.ts';

/** A nurse besides the one of STAFF: the one an administrator deactivates. */
export const BIDAN = `bidan@${TENANT}.test`;

export let stack: Stack;
export let smtp: SmtpPeer;
/** The administrator's session, signed in through the API. */
export let adminCookie: string;
let world: DashboardWorld | undefined;

/** Starts the stack, the people and the patients before the file's tests, and stops it after them. */
export function useDashboardStack(name: string): void {
  before(async () => {
    world = await startDashboardWorld(name, [...STAFF, { email: BIDAN, tenant: TENANT, role: 'nurse' }], {
      env: {
        identity: {
          OTP_SENDS_PER_ADDRESS_PER_HOUR: '100',
          OTP_SENDS_PER_ADDRESS_PER_DAY: '200',
          MAGIC_LINK_SENDS_PER_ADDRESS_PER_HOUR: '100',
        },
      },
    });
    ({ stack, smtp } = world);
    adminCookie = (await signInWithOtp(stack, smtp, USERS.admin)).cookie;
    await registerPatients(stack, adminCookie, 25);
  });
  after(async () => {
    await world?.stop();
  });
}

export const contextAs = (email?: string, options: Parameters<Browser['newContext']>[0] = {}) => openContext(world!, email, options);

/** Presses Tab until `selector` has focus: a dashboard page's controls are reached within 80. */
export const tabTo = (page: Page, selector: string) => tabToAtMost(page, selector, 80);

export async function api(
  path: string,
  cookie: string,
  body?: unknown,
): Promise<{ status: number; json: { result?: { data?: unknown } } & Record<string, unknown> }> {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { cookie, origin: stack.publicUrl, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as never };
}

export interface Pasien {
  id: string;
  noRm: string;
  nik: string;
  nama: string;
  version: number;
  pekerjaan: string | null;
  telepon: string | null;
}

export async function findPatient(q: string): Promise<Pasien> {
  const { json } = await api(`/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify({ q, limit: 1 }))}`, adminCookie);
  return (json.result!.data as { items: Pasien[] }).items[0]!;
}
