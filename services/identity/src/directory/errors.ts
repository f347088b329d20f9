// Domain errors of identity's own operations (tenants, users, sessions), mapped to transport errors in
// one place per surface: gRPC in server/grpc.ts, HTTP (Better Auth endpoints) in tenants/account-api.ts.
export type ErrorKind = 'invalid' | 'unauthenticated' | 'denied' | 'not_found' | 'conflict' | 'precondition' | 'unavailable';

export class IdentityError extends Error {
  readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string) {
    super(message);
    this.name = 'IdentityError';
    this.kind = kind;
  }
}

export const HTTP_STATUS = {
  invalid: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHORIZED',
  denied: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  precondition: 'PRECONDITION_FAILED',
  unavailable: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<ErrorKind, string>;
