// Records reached directly on a stack (no gateway), as records' own test kit reaches its process: a
// principal signed with the stack's secret, tRPC mutations, and the owner's connection for assertions.
// For tests that prepare data in bulk before a browser looks at it.
import pg from 'pg';
import { SESSION_SCOPES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import { signPrincipal } from '@simrs/contracts/principal';
import type { RecordsCaller } from '@simrs/records/testing';
import type { Stack } from '../../scripts/lib/stack.ts';

export async function recordsDirect(stack: Stack): Promise<RecordsCaller & { close(): Promise<void> }> {
  const owner = new pg.Client({ connectionString: stack.databases.records });
  await owner.connect();
  return {
    owner,
    principal(tenantId, role, overrides = {}) {
      const scopes = overrides.scopes ?? [...(SESSION_SCOPES[role as Role] ?? ['simrs:read', 'simrs:write'])];
      return signPrincipal(
        { userId: `${role}@${tenantId}`, tenantId, role, sessionId: 'sess-1', ...overrides, scopes },
        stack.secrets.principal,
      );
    },
    async mutate(path, input, principal) {
      const res = await fetch(`${stack.urls.records}/trpc/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(principal ? { 'x-simrs-principal': principal } : {}) },
        body: JSON.stringify(input),
      });
      return { status: res.status, body: await res.json(), headers: res.headers };
    },
    close: () => owner.end(),
  };
}
