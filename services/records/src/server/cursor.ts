// Opaque keyset cursors. A cursor holds the sort key of the last row of a page (which can be part of
// a patient's name), so it is sealed with AES-256-GCM: callers can neither read nor forge it, and it
// is bound to the tenant and the listing it came from. Anything else is a 400, never a lookup.
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomFillSync } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { FieldErrors } from './errors.ts';

export type CursorKind = 'pasien.rm' | 'pasien.nama' | 'pasien.lahir' | 'audit' | 'fhir.search' | 'fhir.history' | 'klinis.riwayat';

export interface Cursors {
  seal(kind: CursorKind, tenantId: string, key: readonly (string | number)[]): string;
  open(token: string, kind: CursorKind, tenantId: string): (string | number)[];
}

/** Random bytes for IVs, drawn 12 at a time from a block filled at once (one CSPRNG call per 512 IVs). */
function randomIvs(): () => Buffer {
  const block = Buffer.alloc(12 * 512);
  let at = block.length;
  return () => {
    if (at === block.length) {
      randomFillSync(block);
      at = 0;
    }
    // A copy: the block is refilled later, and an IV must never be seen twice.
    return Buffer.from(block.subarray(at, (at += 12)));
  };
}

/** How many sealed cursors are remembered (oldest out). */
const SEALED_KEPT = 1_000;

export function cursors(secret: string): Cursors {
  // A KeyObject, made once: a raw Buffer would be turned into one on every seal and open.
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'simrs-records', 'list-cursor-v1', 32)));
  const nextIv = randomIvs();
  // Tokens by what they seal: the same page end (above all the end of a listing's first page, which
  // every dashboard opens) gets the token it got before rather than a new encryption. That reveals
  // nothing new: the token is one records made for that very position of that tenant's listing.
  const sealed = new Map<string, string>();
  return {
    seal(kind, tenantId, values) {
      const aad = `${kind}\u0000${tenantId}`;
      const plain = JSON.stringify(values);
      const id = `${aad}\u0000${plain}`;
      const known = sealed.get(id);
      if (known !== undefined) return known;
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const token = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
      if (sealed.size >= SEALED_KEPT) sealed.delete(sealed.keys().next().value!);
      sealed.set(id, token);
      return token;
    },
    open(token, kind, tenantId) {
      try {
        const raw = Buffer.from(token, 'base64url');
        if (raw.length < 29) throw new Error('short');
        // The decoder skips what is not base64url and the unused bits of the last character, so
        // another spelling of the same bytes would open too: only the token as sealed does.
        if (raw.toString('base64url') !== token) throw new Error('not as sealed');
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(`${kind}\u0000${tenantId}`));
        decipher.setAuthTag(raw.subarray(12, 28));
        const values: unknown = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
        if (!Array.isArray(values) || !values.every((v) => typeof v === 'string' || typeof v === 'number')) throw new Error('shape');
        return values as (string | number)[];
      } catch {
        throw new TRPCError({
          code: 'BAD_REQUEST',
          message: 'cursor is not valid for this listing',
          cause: new FieldErrors({ cursor: ['cursor is not valid for this listing'] }),
        });
      }
    },
  };
}
