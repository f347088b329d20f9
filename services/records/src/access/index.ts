// Who may do what: the permission matrix the guards enforce (the README's table is rendered from
// permissions.ts).
export { authorize, PROCEDURES, SCOPE_FOR, roleMay } from './permissions.ts';
export type { Permission, ProcedureName } from './permissions.ts';
