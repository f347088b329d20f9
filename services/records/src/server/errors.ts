// Domain and database errors mapped to tRPC errors in one place. A caller's mistake is a 4xx with a
// message that helps; Postgres being down or overloaded is a 503; anything else is a 500 that says
// nothing (the error formatter hides it) while the log says everything.
import { TRPCError } from '@trpc/server';
import { isUnavailable } from '../db/index.ts';

/** Field-level problems found after input parsing; the error formatter puts them in data.fieldErrors. */
export class FieldErrors extends Error {
  readonly fieldErrors: Record<string, string[]>;
  constructor(fieldErrors: Record<string, string[]>) {
    super(
      Object.entries(fieldErrors)
        .map(([f, m]) => `${f}: ${m.join('; ')}`)
        .join('; '),
    );
    this.name = 'FieldErrors';
    this.fieldErrors = fieldErrors;
  }
}

export function badInput(fieldErrors: Record<string, string[]>): TRPCError {
  const cause = new FieldErrors(fieldErrors);
  return new TRPCError({ code: 'BAD_REQUEST', message: cause.message, cause });
}

/** What a unique index's refusal means to the caller (two writers raced past the store's own check). */
const UNIQUE_CLASHES = new Map([
  ['klinis_one_primary', 'the visit already has a primary diagnosis: record this one as secondary, or correct the primary'],
  ['klinis_one_note', 'the visit has a note: correct it (catatan.amend) instead'],
]);

/** The tRPC error for anything a data access call threw. */
export function toTRPCError(err: unknown): TRPCError {
  if (err instanceof TRPCError) return err;
  const e = err as { code?: unknown; constraint?: unknown };
  if (e.code === '23505') {
    if (e.constraint === 'pasien_nik_unique') {
      return new TRPCError({
        code: 'CONFLICT',
        message: 'a patient with this NIK is already registered in this hospital',
        cause: new FieldErrors({ nik: ['a patient with this NIK is already registered in this hospital'] }),
      });
    }
    const clash = UNIQUE_CLASHES.get(String(e.constraint));
    return new TRPCError({ code: 'CONFLICT', message: clash ?? 'the record conflicts with an existing one', cause: err as Error });
  }
  if (typeof e.code === 'string' && /^22|^23/.test(e.code)) {
    // Data exceptions and constraint violations the schema let through: still the caller's input.
    return new TRPCError({ code: 'BAD_REQUEST', message: 'the input was refused by the database', cause: err as Error });
  }
  if (isUnavailable(err)) {
    return new TRPCError({
      code: 'SERVICE_UNAVAILABLE',
      message: 'the records database is unavailable, try again shortly',
      cause: err as Error,
    });
  }
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'internal error', cause: err as Error });
}
