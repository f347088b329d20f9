// Opaque keyset cursors. A cursor holds the sort key of the last row of a page (which can be part of
// a patient's name), so it is sealed (platform's seal: AES-256-GCM): callers can neither read nor
// forge it, and it is bound to the tenant and the listing it came from. Anything else is a 400, never
// a lookup.
import { TRPCError } from '@trpc/server';
import { deriveKey, open, seal } from '@simrs/platform/seal';
import { FieldErrors } from './errors.ts';

export type CursorKind = 'pasien.rm' | 'pasien.nama' | 'pasien.lahir' | 'audit' | 'fhir.search' | 'fhir.history' | 'klinis.riwayat';

export interface Cursors {
  seal(kind: CursorKind, tenantId: string, key: readonly (string | number)[]): string;
  open(token: string, kind: CursorKind, tenantId: string): (string | number)[];
}

/** How many sealed cursors are remembered (oldest out). */
const SEALED_KEPT = 1_000;

const invalid = () =>
  new TRPCError({
    code: 'BAD_REQUEST',
    message: 'cursor is not valid for this listing',
    cause: new FieldErrors({ cursor: ['cursor is not valid for this listing'] }),
  });

/** What a cursor is bound to: its listing and its tenant (sealed as associated data). */
const contextOf = (kind: CursorKind, tenantId: string) => `cursor\u0000${kind}\u0000${tenantId}`;

function parseKey(plain: string | undefined): (string | number)[] {
  if (plain === undefined) throw invalid();
  let values: unknown;
  try {
    values = JSON.parse(plain);
  } catch {
    throw invalid();
  }
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string' || typeof v === 'number')) throw invalid();
  return values as (string | number)[];
}

export function cursors(secret: string): Cursors {
  const key = deriveKey(secret, 'simrs-records', 'list-cursor-v1');
  // Tokens by what they seal: the same page end (above all the end of a listing's first page, which
  // every dashboard opens) gets the token it got before rather than a new encryption. That reveals
  // nothing new: the token is one records made for that very position of that tenant's listing.
  const sealed = new Map<string, string>();
  return {
    seal(kind, tenantId, values) {
      const context = contextOf(kind, tenantId);
      const plain = JSON.stringify(values);
      const id = `${context}\u0000${plain}`;
      const known = sealed.get(id);
      if (known !== undefined) return known;
      const token = seal(key, plain, context);
      if (sealed.size >= SEALED_KEPT) sealed.delete(sealed.keys().next().value!);
      sealed.set(id, token);
      return token;
    },
    open(token, kind, tenantId) {
      return parseKey(open(key, token, contextOf(kind, tenantId)));
    },
  };
}
