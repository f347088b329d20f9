// Need-to-know for clinical content: the one check every surface makes before a permission marked in
// NEEDS_RELATIONSHIP (permissions.ts) reaches a patient. Allowed with a treatment relationship (the
// patient has a visit at one of the caller's clinics, open or finished within the hospital's window:
// records.treatment_relationship in migrations/005_kunjungan.sql), or with an unexpired
// break-the-glass grant, in which case the access is flagged in the audit trail.
import { TRPCError } from '@trpc/server';
import type { TenantDb } from '../db/index.ts';
import { NEEDS_RELATIONSHIP } from './permissions.ts';
import type { Permission } from './permissions.ts';

/** Whom the checked access is about: a patient, a visit or a clinical entry (then its patient). */
export type ClinicalSubject = { pasienId: string } | { kunjunganId: string } | { klinisId: string };

export interface ClinicalAccess {
  pasienId: string;
  /** True when only a break-the-glass grant allowed it (the audit row is flagged). */
  breakGlass: boolean;
}

/**
 * The check's two answers for a user and a patient (SQL expressions): `rel`, a treatment relationship,
 * and `btg`, an unexpired break-the-glass grant. Every need-to-know check computes them so.
 */
export const accessColumns = (user: string, pasien: string) =>
  `records.treatment_relationship(${user}, ${pasien}) as rel, records.active_btg(${user}, ${pasien}) as btg`;

const SUBJECT_SQL = {
  pasien: `select p.id::text as pasien_id, ${accessColumns('$1', 'p.id')} from records.pasien p where p.id = $2::uuid`,
  kunjungan: `select k.pasien_id::text as pasien_id, ${accessColumns('$1', 'k.pasien_id')} from records.kunjungan k where k.id = $2::uuid`,
  klinis: `select e.pasien_id::text as pasien_id, ${accessColumns('$1', 'e.pasien_id')} from records.klinis e where e.id = $2::uuid`,
};

/**
 * A need-to-know check left to the handler's own statement (clinicalWriteProcedure): the statement
 * computes accessColumns, writes only when one of them holds, and flags its audit row from them; when
 * it wrote nothing, needToKnow with this permission says why.
 */
export interface AccessInStatement {
  readonly permission: Permission;
  readonly inStatement: true;
}

/**
 * Refuses (403, or 404 when the subject is not in the caller's hospital) unless `userId` may reach
 * the subject's clinical content; for permissions not marked need-to-know, says so without a query.
 */
export async function needToKnow(
  db: TenantDb,
  userId: string,
  permission: Permission,
  subject: ClinicalSubject,
): Promise<ClinicalAccess | undefined> {
  if (!NEEDS_RELATIONSHIP[permission]) return undefined;
  const [sql, id, what] =
    'pasienId' in subject
      ? [SUBJECT_SQL.pasien, subject.pasienId, 'patient']
      : 'kunjunganId' in subject
        ? [SUBJECT_SQL.kunjungan, subject.kunjunganId, 'visit']
        : [SUBJECT_SQL.klinis, subject.klinisId, 'clinical entry'];
  const rows = await db.one<{ pasien_id: string; rel: boolean; btg: boolean }>(sql, [userId, id]);
  const row = rows[0];
  if (!row) throw new TRPCError({ code: 'NOT_FOUND', message: `${what} not found` });
  if (row.rel) return { pasienId: row.pasien_id, breakGlass: false };
  if (row.btg) return { pasienId: row.pasien_id, breakGlass: true };
  throw new TRPCError({
    code: 'FORBIDDEN',
    message:
      'no treatment relationship with this patient (no visit at one of your clinics, open or recent): break the glass with a written reason (btg.open) if you must open the record',
  });
}
