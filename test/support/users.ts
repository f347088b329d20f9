// Tenants, users and sign-ins for cross-service tests, through the same doors real people use: the
// identity admin API over gRPC (as the CLI does) and the e-mail OTP flow through the gateway.
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { createClient } from '@simrs/proto/grpc';
import type { Stack } from '../../scripts/lib/stack.ts';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';

export interface TestUser {
  email: string;
  tenant: string;
  role: string;
}

/** Creates each tenant with its first tenant_admin, then invites the other users. */
export async function seedUsers(stack: Stack, users: TestUser[]): Promise<void> {
  const identity = createClient(IdentityService, stack.urls.identityGrpc);
  try {
    const byTenant = new Map<string, TestUser[]>();
    for (const u of users) byTenant.set(u.tenant, [...(byTenant.get(u.tenant) ?? []), u]);
    for (const [tenant, members] of byTenant) {
      const admin = members.find((m) => m.role === 'tenant_admin') ?? { email: `admin@${tenant}.test`, tenant, role: 'tenant_admin' };
      await identity.createTenant({ tenantId: tenant, name: `Rumah Sakit ${tenant}`, adminEmail: admin.email, adminName: 'Admin' });
      for (const m of members) {
        if (m === admin) continue;
        await identity.inviteUser({ actor: { email: admin.email }, email: m.email, role: m.role, name: m.email.split('@')[0]! });
      }
    }
  } finally {
    identity.close();
  }
}

/** The session cookie ("name=value") from a Set-Cookie list. */
export function sessionCookie(setCookie: string[] | string | undefined | null): string | undefined {
  const list = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  const line = list.find((c) => /session_token=/.test(c) && !/session_token=;/.test(c));
  return line?.split(';')[0];
}

/** The code of a sign-in OTP mail: six digits on a line of their own. */
export function otpFrom(text: string): string {
  const code = /^\s*(\d{6})\s*$/m.exec(text)?.[1];
  if (!code) throw new Error('no 6-digit code in the mail');
  return code;
}

export const isOtpMail = (mail: { text: string }) => /^\s*\d{6}\s*$/m.test(mail.text);

/** Signs in by e-mail OTP through the gateway; returns the session cookie ("name=value") and the code. */
export async function signInWithOtp(stack: Stack, smtp: SmtpPeer, email: string): Promise<{ cookie: string; otp: string }> {
  const headers = { 'content-type': 'application/json', origin: stack.publicUrl };
  const since = smtp.messages.length;
  const sent = await fetch(`${stack.gatewayUrl}/api/auth/email-otp/send-verification-otp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, type: 'sign-in' }),
  });
  if (sent.status !== 200) throw new Error(`send-verification-otp: ${sent.status} ${await sent.text()}`);
  const mail = await smtp.waitForMail(email, since, isOtpMail);
  const otp = otpFrom(mail.text);
  const res = await fetch(`${stack.gatewayUrl}/api/auth/sign-in/email-otp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, otp }),
  });
  if (res.status !== 200) throw new Error(`sign-in/email-otp: ${res.status} ${await res.text()}`);
  const cookie = sessionCookie(res.headers.getSetCookie());
  if (!cookie) throw new Error('no session cookie set');
  return { cookie, otp };
}
