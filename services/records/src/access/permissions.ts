// Who may do what with patient records: the permission matrix as data, in this one file. Every
// procedure names the permission it needs (PROCEDURES); server/trpc.ts enforces it after the scope check;
// the README's table is rendered from here (and a test keeps the two equal).
import { ROLES, SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import type { Principal } from '@simrs/contracts/principal';
import { BACKEND_SERVICE_ROLE, scopeReach, seedScopeFor } from '@simrs/contracts/smart';
import type { ApiAction, SmartResource } from '@simrs/contracts/smart';

export const PERMISSIONS = [
  'pasien.list',
  'pasien.read',
  'pasien.create',
  'pasien.update',
  'pasien.archive',
  'audit.read',
  'poli.list',
  'poli.manage',
  'setting.manage',
  'kunjungan.list',
  'kunjungan.register',
  'kunjungan.arrive',
  'kunjungan.start',
  'kunjungan.finish',
  'kunjungan.cancel',
  'clinical.read',
  'btg.open',
  'btg.list',
  'vital.read',
  'vital.record',
  'vital.amend',
  'diagnosis.read',
  'diagnosis.record',
  'diagnosis.amend',
  'alergi.read',
  'alergi.record',
  'alergi.amend',
  'catatan.read',
  'catatan.record',
  'catatan.amend',
  'kode.search',
  'satusehat.manage',
  'satusehat.read',
  'satusehat.status',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const PERMISSION_LABELS: Record<Permission, string> = {
  'pasien.list': 'list and search patients',
  'pasien.read': 'read one patient',
  'pasien.create': 'register a patient',
  'pasien.update': 'correct a patient record',
  'pasien.archive': 'archive a patient',
  'audit.read': 'read the audit log',
  'poli.list': 'list the clinics, their clinicians and the access settings',
  'poli.manage': 'manage clinics and assign clinicians',
  'setting.manage': "change the hospital's access settings",
  'kunjungan.list': 'list and read visits (no clinical content)',
  'kunjungan.register': 'register a visit',
  'kunjungan.arrive': 'check a patient in',
  'kunjungan.start': 'start a visit',
  'kunjungan.finish': 'finish a visit',
  'kunjungan.cancel': 'cancel a visit with a reason',
  'clinical.read': "read a patient's clinical history",
  'btg.open': 'break the glass: open a clinical record with a reason',
  'btg.list': 'list break-the-glass accesses',
  'vital.read': "read a patient's vital signs",
  'vital.record': 'record vital signs',
  'vital.amend': 'correct a vital sign or mark it entered in error, with a reason',
  'diagnosis.read': "read a patient's diagnoses",
  'diagnosis.record': 'record a diagnosis',
  'diagnosis.amend': 'correct a diagnosis or mark it entered in error, with a reason',
  'alergi.read': "read a patient's allergies",
  'alergi.record': 'record an allergy (or that the patient has none known)',
  'alergi.amend': 'correct an allergy or mark it entered in error, with a reason',
  'catatan.read': "read a visit's clinical note",
  'catatan.record': "write the visit's clinical note (SOAP)",
  'catatan.amend': 'correct a clinical note or mark it entered in error, with a reason',
  'kode.search': 'look up diagnosis codes (ICD-10)',
  'satusehat.manage': "set the hospital's SATUSEHAT connection and practitioners' NIKs, resend a visit",
  'satusehat.read': "see the hospital's SATUSEHAT connection (never its secret) and the visits not sent",
  'satusehat.status': "see a visit's SATUSEHAT sync state",
};

/** The clinical kinds and the permissions of each: reading, recording, correcting. */
export const CLINICAL_KINDS = ['vital', 'diagnosis', 'alergi', 'catatan'] as const;
export type ClinicalKind = (typeof CLINICAL_KINDS)[number];
const CLINICAL = CLINICAL_KINDS.flatMap((k) => [`${k}.read`, `${k}.record`, `${k}.amend`] as Permission[]);

/**
 * Need-to-know: a permission marked here reaches a patient's clinical content only when the caller
 * has a treatment relationship with that patient (a visit at one of their clinics, open or ended
 * within the hospital's window) or an unexpired break-the-glass grant for them. Enforced in one place
 * (server/trpc.ts's clinicalProcedure, through access/need-to-know.ts).
 */
export const NEEDS_RELATIONSHIP: Record<Permission, boolean> = Object.assign(
  Object.fromEntries(PERMISSIONS.map((p) => [p, false])) as Record<Permission, boolean>,
  { 'kunjungan.start': true, 'kunjungan.finish': true, 'clinical.read': true },
  Object.fromEntries(CLINICAL.map((p) => [p, true])),
);

/**
 * The matrix. Least privilege: auditors read the audit trail and nothing clinical; registration
 * clerks and administrators see visits but no clinical content; nurses record vital signs and
 * allergies, doctors also diagnoses and the note, and both read the clinical history; archiving (the
 * closest thing to deletion, and easy to abuse) is for the hospital's administrator.
 */
export const GRANTS: Record<Role, readonly Permission[]> = {
  tenant_admin: [
    'pasien.list',
    'pasien.read',
    'pasien.create',
    'pasien.update',
    'pasien.archive',
    'audit.read',
    'poli.list',
    'poli.manage',
    'setting.manage',
    'kunjungan.list',
    'kunjungan.register',
    'kunjungan.cancel',
    'satusehat.manage',
    'satusehat.read',
    'satusehat.status',
  ],
  doctor: [
    'pasien.list',
    'pasien.read',
    'pasien.update',
    'poli.list',
    'kunjungan.list',
    'kunjungan.start',
    'kunjungan.finish',
    'clinical.read',
    'btg.open',
    ...CLINICAL,
    'kode.search',
    'satusehat.status',
  ],
  nurse: [
    'pasien.list',
    'pasien.read',
    'poli.list',
    'kunjungan.list',
    'kunjungan.arrive',
    'kunjungan.start',
    'clinical.read',
    'btg.open',
    'vital.read',
    'vital.record',
    'vital.amend',
    'alergi.read',
    'alergi.record',
    'alergi.amend',
    'diagnosis.read',
    'catatan.read',
    'kode.search',
    'satusehat.status',
  ],
  registration_clerk: [
    'pasien.list',
    'pasien.read',
    'pasien.create',
    'pasien.update',
    'poli.list',
    'kunjungan.list',
    'kunjungan.register',
    'kunjungan.arrive',
    'kunjungan.cancel',
    'satusehat.status',
  ],
  auditor: ['audit.read', 'poli.list', 'btg.list'],
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
  'poli.list': { kind: 'query', permission: 'poli.list' },
  'poli.staff': { kind: 'query', permission: 'poli.list' },
  'poli.create': { kind: 'mutation', permission: 'poli.manage' },
  'poli.update': { kind: 'mutation', permission: 'poli.manage' },
  'poli.assign': { kind: 'mutation', permission: 'poli.manage' },
  'poli.unassign': { kind: 'mutation', permission: 'poli.manage' },
  'pengaturan.get': { kind: 'query', permission: 'poli.list' },
  'pengaturan.update': { kind: 'mutation', permission: 'setting.manage' },
  'kunjungan.list': { kind: 'query', permission: 'kunjungan.list' },
  'kunjungan.get': { kind: 'query', permission: 'kunjungan.list' },
  'kunjungan.register': { kind: 'mutation', permission: 'kunjungan.register' },
  'kunjungan.arrive': { kind: 'mutation', permission: 'kunjungan.arrive' },
  'kunjungan.start': { kind: 'mutation', permission: 'kunjungan.start' },
  'kunjungan.finish': { kind: 'mutation', permission: 'kunjungan.finish' },
  'kunjungan.cancel': { kind: 'mutation', permission: 'kunjungan.cancel' },
  'klinis.riwayat': { kind: 'query', permission: 'clinical.read' },
  'btg.open': { kind: 'mutation', permission: 'btg.open' },
  'btg.list': { kind: 'query', permission: 'btg.list' },
  'vital.list': { kind: 'query', permission: 'vital.read' },
  'vital.history': { kind: 'query', permission: 'vital.read' },
  'vital.record': { kind: 'mutation', permission: 'vital.record' },
  'vital.amend': { kind: 'mutation', permission: 'vital.amend' },
  'vital.retract': { kind: 'mutation', permission: 'vital.amend' },
  'diagnosis.list': { kind: 'query', permission: 'diagnosis.read' },
  'diagnosis.history': { kind: 'query', permission: 'diagnosis.read' },
  'diagnosis.record': { kind: 'mutation', permission: 'diagnosis.record' },
  'diagnosis.amend': { kind: 'mutation', permission: 'diagnosis.amend' },
  'diagnosis.retract': { kind: 'mutation', permission: 'diagnosis.amend' },
  'alergi.list': { kind: 'query', permission: 'alergi.read' },
  'alergi.history': { kind: 'query', permission: 'alergi.read' },
  'alergi.record': { kind: 'mutation', permission: 'alergi.record' },
  'alergi.amend': { kind: 'mutation', permission: 'alergi.amend' },
  'alergi.retract': { kind: 'mutation', permission: 'alergi.amend' },
  'catatan.list': { kind: 'query', permission: 'catatan.read' },
  'catatan.history': { kind: 'query', permission: 'catatan.read' },
  'catatan.record': { kind: 'mutation', permission: 'catatan.record' },
  'catatan.amend': { kind: 'mutation', permission: 'catatan.amend' },
  'catatan.retract': { kind: 'mutation', permission: 'catatan.amend' },
  'kode.search': { kind: 'query', permission: 'kode.search' },
  'satusehat.connection': { kind: 'query', permission: 'satusehat.read' },
  'satusehat.connect': { kind: 'mutation', permission: 'satusehat.manage' },
  'satusehat.test': { kind: 'mutation', permission: 'satusehat.manage' },
  'satusehat.practitioner': { kind: 'mutation', permission: 'satusehat.manage' },
  'satusehat.list': { kind: 'query', permission: 'satusehat.read' },
  'satusehat.status': { kind: 'query', permission: 'satusehat.status' },
  'satusehat.resend': { kind: 'mutation', permission: 'satusehat.manage' },
} as const satisfies Record<string, { kind: ProcedureKind; permission: Permission }>;
export type ProcedureName = keyof typeof PROCEDURES;

export const SCOPE_FOR: Record<ProcedureKind, string> = { query: SCOPE_READ, mutation: SCOPE_WRITE };

/**
 * A backend service (SMART Backend Services: a token a system obtained for itself, no person behind
 * it) holds none of the staff roles. On the interactive surfaces it reads and searches patients, as
 * far as its `system/` scopes allow; clinical content stays behind need-to-know, which no system has.
 */
export const BACKEND_SERVICE_GRANTS: readonly Permission[] = ['pasien.list', 'pasien.read'];

export function roleMay(role: string, permission: Permission): boolean {
  if (role === BACKEND_SERVICE_ROLE) return BACKEND_SERVICE_GRANTS.includes(permission);
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
  'poli.list': 'search',
  'poli.manage': 'update',
  'setting.manage': 'update',
  'kunjungan.list': 'search',
  'kunjungan.register': 'create',
  'kunjungan.arrive': 'update',
  'kunjungan.start': 'update',
  'kunjungan.finish': 'update',
  'kunjungan.cancel': 'update',
  'clinical.read': 'read',
  'btg.open': 'create',
  'btg.list': 'audit.read',
  'vital.read': 'read',
  'vital.record': 'create',
  'vital.amend': 'update',
  'diagnosis.read': 'read',
  'diagnosis.record': 'create',
  'diagnosis.amend': 'update',
  'alergi.read': 'read',
  'alergi.record': 'create',
  'alergi.amend': 'update',
  'catatan.read': 'read',
  'catatan.record': 'create',
  'catatan.amend': 'update',
  'kode.search': 'search',
  'satusehat.manage': 'update',
  'satusehat.read': 'search',
  'satusehat.status': 'search',
};

/** The FHIR resource type each clinical kind is served as (and a SMART scope must name). */
export const RESOURCE_OF_KIND: Record<ClinicalKind, SmartResource> = {
  vital: 'Observation',
  diagnosis: 'Condition',
  alergi: 'AllergyIntolerance',
  catatan: 'DocumentReference',
};

/** The FHIR resource type a SMART scope must name for a permission: visits are Encounters. */
export function resourceOf(permission: Permission): SmartResource {
  if (permission.startsWith('kunjungan.')) return 'Encounter';
  const kind = permission.split('.')[0] as ClinicalKind;
  return (CLINICAL_KINDS as readonly string[]).includes(kind) ? RESOURCE_OF_KIND[kind] : 'Patient';
}

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
  const reach = scopeReach(principal.scopes, action, resourceOf(permission));
  if (!reach) return { refused: `this credential lacks the ${seedScopeFor(action)} scope` };
  if (!roleMay(principal.role, permission)) return { refused: `role ${principal.role} may not ${PERMISSION_LABELS[permission]}` };
  if (reach === 'all') return { reach };
  if (!principal.patientId) return { refused: 'this credential has only patient/ scopes and no patient in its launch context' };
  return { reach, patientId: principal.patientId };
}

/** The README table: one row per procedure, one column per role. */
export function permissionTable(): string {
  const header = `| procedure | permission | scope | need-to-know | ${ROLES.join(' | ')} |`;
  const rule = `|---|---|---|---|${ROLES.map(() => '---').join('|')}|`;
  const rows = (Object.entries(PROCEDURES) as [ProcedureName, (typeof PROCEDURES)[ProcedureName]][]).map(
    ([name, p]) =>
      `| \`${name}\` | ${PERMISSION_LABELS[p.permission]} | \`${SCOPE_FOR[p.kind]}\` | ${NEEDS_RELATIONSHIP[p.permission] ? 'yes' : '-'} | ${ROLES.map((r) => (GRANTS[r].includes(p.permission) ? 'yes' : '-')).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}
