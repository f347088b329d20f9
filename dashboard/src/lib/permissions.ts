// What the signed-in role may do: records' permission matrix itself (services/records), so that the
// dashboard shows exactly what the API allows. Administration of people and integrations belongs to
// tenant administrators (identity's rule).
import type { Role } from '@simrs/contracts/access';
import { GRANTS } from '@simrs/records/permissions';
import type { Permission } from '@simrs/records/permissions';

export type { Permission };
export type Capability = Permission | 'tenant.admin';

export function can(role: string | undefined, capability: Capability): boolean {
  if (!role || !(role in GRANTS)) return false;
  if (capability === 'tenant.admin') return role === 'tenant_admin';
  return GRANTS[role as Role].includes(capability);
}

/**
 * Where a role starts after signing in: its day's work where it has one (a clinician's queue, the front
 * desk's visits), else the patients.
 */
export function homeFor(role: string | undefined): string {
  if (can(role, 'kunjungan.start')) return '/antrean';
  if (can(role, 'kunjungan.register') && !can(role, 'tenant.admin')) return '/pendaftaran';
  if (can(role, 'pasien.list')) return '/pasien';
  if (can(role, 'audit.read')) return '/audit';
  return '/akun';
}
