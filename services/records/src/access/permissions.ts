// Who may do what with patient records: the permission matrix as data, in this one file. Every
// procedure names the permission it needs (PROCEDURES); server/trpc.ts enforces it after the scope check;
// the README's table is rendered from here (and a test keeps the two equal).
import { ROLES, SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import type { Principal } from '@simrs/contracts/principal';
import { scopeReach, seedScopeFor } from '@simrs/contracts/smart';
import type { ApiAction } from '@simrs/contracts/smart';

export const PERMISSIONS = ['pasien.list', 'pasien.read', 'pasien.create', 'pasien.update', 'pasien.archive', 'audit.read'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PERMISSION_LABELS: Record<Permission, string> = {
  'pasien.list': 'list and search patients',
  'pasien.read': 'read one patient',
  'pasien.create': 'register a patient',
  'pasien.update': 'correct a patient record',
  'pasien.archive': 'archive a patient',
  'audit.read': 'read the audit log',
};

/**
 * The matrix. Least privilege: auditors read the audit trail and nothing clinical; nurses look
 * patients up; registration clerks and doctors maintain the record; archiving (the closest thing
 * to deletion, and easy to abuse) is for the hospital's administrator.
 */
export const GRANTS: Record<Role, readonly Permission[]> = {
  tenant_admin: ['pasien.list', 'pasien.read', 'pasien.create', 'pasien.update', 'pasien.archive', 'audit.read'],
  doctor: ['pasien.list', 'pasien.read', 'pasien.update'],
  nurse: ['pasien.list', 'pasien.read'],
  registration_clerk: ['pasien.list', 'pasien.read', 'pasien.create', 'pasien.update'],
  auditor: ['audit.read'],
};

export type ProcedureKind = 'query' | 'mutation';

/** Every protected procedure: its kind (which decides the scope) and the permission it needs. */
export const PROCEDURES = {
  'pasien.list': { kind: 'query', permission: 'pasien.list' },
  'pasien.get': { kind: 'query', permission: 'pasien.read' },
  'pasien.create': { kind: 'mutation', permission: 'pasien.create' },
  'pasien.update': { kind: 'mutation', permission: 'pasien.update' },
  'pasien.archive': { kind: 'mutation', permission: 'pasien.archive' },
  'audit.list': { kind: 'query', permission: 'audit.read' },
} as const satisfies Record<string, { kind: ProcedureKind; permission: Permission }>;
export type ProcedureName = keyof typeof PROCEDURES;

export const SCOPE_FOR: Record<ProcedureKind, string> = { query: SCOPE_READ, mutation: SCOPE_WRITE };

export function roleMay(role: string, permission: Permission): boolean {
  return (ROLES as readonly string[]).includes(role) && GRANTS[role as Role].includes(permission);
}

/** The scope-level action each permission needs (what a SMART scope or a seed scope must allow). */
export const ACTION_FOR: Record<Permission, ApiAction> = {
  'pasien.list': 'search',
  'pasien.read': 'read',
  'pasien.create': 'create',
  'pasien.update': 'update',
  'pasien.archive': 'delete',
  'audit.read': 'audit.read',
};

/**
 * Scopes first, then the role: may this principal use `permission`, and how far? `all` is every
 * patient of the tenant; `patient` only the launch patient of a `patient/` SMART scope (and refused
 * when the token has none). The tRPC and REST procedures take `all` only.
 */
export function authorize(
  principal: Principal,
  permission: Permission,
): { reach: 'all' } | { reach: 'patient'; patientId: string } | { refused: string } {
  const action = ACTION_FOR[permission];
  const reach = scopeReach(principal.scopes, action);
  if (!reach) return { refused: `this credential lacks the ${seedScopeFor(action)} scope` };
  if (!roleMay(principal.role, permission)) return { refused: `role ${principal.role} may not ${PERMISSION_LABELS[permission]}` };
  if (reach === 'all') return { reach };
  if (!principal.patientId) return { refused: 'this credential has only patient/ scopes and no patient in its launch context' };
  return { reach, patientId: principal.patientId };
}

/** The README table: one row per procedure, one column per role. */
export function permissionTable(): string {
  const header = `| procedure | permission | scope | ${ROLES.join(' | ')} |`;
  const rule = `|---|---|---|${ROLES.map(() => '---').join('|')}|`;
  const rows = (Object.entries(PROCEDURES) as [ProcedureName, (typeof PROCEDURES)[ProcedureName]][]).map(
    ([name, p]) =>
      `| \`${name}\` | ${PERMISSION_LABELS[p.permission]} | \`${SCOPE_FOR[p.kind]}\` | ${ROLES.map((r) => (GRANTS[r].includes(p.permission) ? 'yes' : '-')).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}
