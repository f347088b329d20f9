// Who may do what: the permission matrix the guards enforce (the README's table is rendered from
// permissions.ts), and the need-to-know check for clinical content.
export { accessColumns, needToKnow } from './need-to-know.ts';
export type { AccessInStatement, ClinicalAccess, ClinicalSubject } from './need-to-know.ts';
export {
  ACTION_FOR,
  authorize,
  CLINICAL_KINDS,
  PERMISSION_LABELS,
  resourceOf,
  NEEDS_RELATIONSHIP,
  PROCEDURES,
  RESOURCE_OF_KIND,
  SCOPE_FOR,
  roleMay,
} from './permissions.ts';
export type { ClinicalKind, Permission, ProcedureName } from './permissions.ts';
