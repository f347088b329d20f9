// The roles a hospital's staff can have, and the OAuth-style scopes a cookie session of each role
// carries. Identity assigns roles; records decides what each role may do (its permission matrix).
export const ROLES = ['tenant_admin', 'doctor', 'nurse', 'registration_clerk', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPE_READ = 'simrs:read';
export const SCOPE_WRITE = 'simrs:write';

/** Scopes of a browser session by role: auditors only ever read. */
export const SESSION_SCOPES: Record<Role, readonly string[]> = {
  tenant_admin: [SCOPE_READ, SCOPE_WRITE],
  doctor: [SCOPE_READ, SCOPE_WRITE],
  nurse: [SCOPE_READ, SCOPE_WRITE],
  registration_clerk: [SCOPE_READ, SCOPE_WRITE],
  auditor: [SCOPE_READ],
};

export const ROLE_LABELS: Record<Role, { en: string; id: string }> = {
  tenant_admin: { en: 'Tenant administrator', id: 'Administrator rumah sakit' },
  doctor: { en: 'Doctor', id: 'Dokter' },
  nurse: { en: 'Nurse', id: 'Perawat' },
  registration_clerk: { en: 'Registration clerk', id: 'Petugas pendaftaran' },
  auditor: { en: 'Auditor', id: 'Auditor' },
};

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
