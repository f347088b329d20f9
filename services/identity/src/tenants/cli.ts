// `npm run admin -- <command> ...`: the platform operator's and tenant administrators' tool. It talks
// gRPC to a running identity (IDENTITY_GRPC, default 127.0.0.1:50051), so every rule (who may do
// what, ending sessions, telling the gateway, sending invitations through the notifier) is the
// service's, never duplicated here. Authenticates with ADMIN_API_TOKEN when set; without it identity
// accepts admin calls only from loopback (e.g. `kubectl exec` into an identity pod).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createClient, grpc, isStatus } from '@simrs/proto/grpc';
import { IdentityService } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import type { Tenant, User, UserRef } from '@simrs/proto/gen/simrs/identity/v1/identity_pb';
import { ROLES } from '@simrs/contracts/access';

const USAGE = `Usage: npm run admin -- <command> [arguments] [options]

Platform operator:
  create-tenant <tenant-id> <name> --admin <email> [--admin-name <name>]
                                   create a hospital and invite its first tenant_admin
  list-tenants                     list every tenant
  rotate-signing-key               a new key signs tokens from now on (the old ones stay published)

Tenant administrators (--as names the acting tenant_admin, by e-mail address or user id):
  list-users --as <admin>
  invite <email> <role> --as <admin> [--name <name>]
  change-role <user> <role> --as <admin>
  deactivate <user> --as <admin>   also ends every session of the user at once
  reactivate <user> --as <admin>
  issue-registration-token --as <admin> [--write] [--ttl <seconds>]
                                   an initial access token for registering one OAuth client of the
                                   tenant (simrs:read; simrs:write only with --write)
  register-backend-service --as <admin> --name <name> --scope "<system/ scopes>"
                           (--jwks-url <https URL> | --jwks-file <file>)
                                   a SMART backend service (client credentials with a signed JWT)
                                   with its public keys; prints its client id
  list-oauth-clients --as <admin>  the tenant's OAuth clients
  revoke-oauth-client <client-id> --as <admin>
                                   disable a client, delete its tokens and consents; the gateway
                                   refuses its access tokens at once

<user> is an e-mail address or a user id. A value with spaces is quoted: --name "Bidan Ani". Roles: ${ROLES.join(', ')}.
Environment: IDENTITY_GRPC (default 127.0.0.1:50051), ADMIN_API_TOKEN (when identity requires one).`;

class UsageError extends Error {}

const ref = (value: string | undefined, what: string): UserRef | { userId?: string; email?: string } => {
  if (!value) throw new UsageError(`${what} is required`);
  return value.includes('@') ? { email: value } : { userId: value };
};

const date = (t: { seconds: bigint } | undefined) => (t ? new Date(Number(t.seconds) * 1000).toISOString().slice(0, 10) : '');

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const userLine = (u: User) => `${u.email} (${u.role}, ${u.active ? 'active' : 'deactivated'}, id ${u.userId})`;

function usersTable(users: User[]): string {
  return table([
    ['EMAIL', 'NAME', 'ROLE', 'STATUS', 'LAST SIGN-IN', 'USER ID'],
    ...users.map((u) => [
      u.email,
      u.name,
      u.role,
      u.active ? 'active' : 'deactivated',
      u.lastSignInAt ? date(u.lastSignInAt) : 'never',
      u.userId,
    ]),
  ]);
}

const tenantsTable = (tenants: Tenant[]) =>
  table([['TENANT', 'NAME', 'CREATED'], ...tenants.map((t) => [t.tenantId, t.name, date(t.createdAt)])]);

const OPTIONS = {
  as: { type: 'string' },
  name: { type: 'string' },
  admin: { type: 'string' },
  'admin-name': { type: 'string' },
  write: { type: 'boolean' },
  ttl: { type: 'string' },
  scope: { type: 'string' },
  'jwks-url': { type: 'string' },
  'jwks-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** What a command runs with: the client, the call options, its arguments and the parsed options. */
interface Call {
  identity: ReturnType<typeof identityClient>;
  opts: { metadata: grpc.Metadata; timeoutMs: number };
  args: string[];
  values: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>['values'];
  /** The acting tenant_admin (--as). */
  actor: () => UserRef | { userId?: string; email?: string };
}

const identityClient = (address: string) => createClient(IdentityService, address);

async function createTenant({ identity, opts, args, values }: Call): Promise<void> {
  const [tenantId, name] = args;
  if (!tenantId || !name || !values.admin) throw new UsageError('create-tenant <tenant-id> <name> --admin <email>');
  const res = await identity.createTenant({ tenantId, name, adminEmail: values.admin, adminName: values['admin-name'] ?? '' }, opts);
  console.log(`Created tenant ${res.tenant?.tenantId} "${res.tenant?.name}".`);
  console.log(`Invited ${userLine(res.admin!)}: the invitation link is on its way.`);
}

async function listTenants({ identity, opts }: Call): Promise<void> {
  const res = await identity.listTenants({}, opts);
  console.log(res.tenants.length ? tenantsTable(res.tenants) : 'No tenants yet.');
}

async function rotateSigningKey({ identity, opts }: Call): Promise<void> {
  const res = await identity.rotateSigningKey({}, opts);
  console.log(`New signing key ${res.keyId}; retired (still published): ${res.retiredKeyIds.join(', ') || 'none'}.`);
}

async function listUsers({ identity, opts, actor }: Call): Promise<void> {
  const res = await identity.listUsers({ actor: actor() }, opts);
  console.log(`${res.tenant?.name} (${res.tenant?.tenantId}): ${res.users.length} user(s)\n`);
  console.log(usersTable(res.users));
}

async function invite({ identity, opts, args, values, actor }: Call): Promise<void> {
  const [email, role] = args;
  if (!email || !role) throw new UsageError('invite <email> <role> --as <admin>');
  const res = await identity.inviteUser({ actor: actor(), email, role, name: values.name ?? '' }, opts);
  console.log(`Invited ${userLine(res.user!)}: the invitation link is on its way.`);
}

async function changeRole({ identity, opts, args, actor }: Call): Promise<void> {
  const [user, role] = args;
  if (!user || !role) throw new UsageError('change-role <user> <role> --as <admin>');
  const res = await identity.changeRole({ actor: actor(), user: ref(user, '<user>'), role }, opts);
  console.log(`Role changed: ${userLine(res.user!)}.`);
}

async function deactivate({ identity, opts, args, actor }: Call): Promise<void> {
  const res = await identity.deactivateUser({ actor: actor(), user: ref(args[0], '<user>') }, opts);
  console.log(`Deactivated ${userLine(res.user!)}; ${res.sessionsEnded} session(s) ended.`);
}

async function reactivate({ identity, opts, args, actor }: Call): Promise<void> {
  const res = await identity.reactivateUser({ actor: actor(), user: ref(args[0], '<user>') }, opts);
  console.log(`Reactivated ${userLine(res.user!)}.`);
}

async function issueRegistrationToken({ identity, opts, values, actor }: Call): Promise<void> {
  const ttlSeconds = values.ttl === undefined ? 0 : Number(values.ttl);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 0) throw new UsageError('--ttl takes a number of seconds');
  const res = await identity.issueRegistrationToken({ actor: actor(), allowWrite: values.write === true, ttlSeconds }, opts);
  const expires = res.expiresAt ? new Date(Number(res.expiresAt.seconds) * 1000).toISOString() : '';
  console.log(`Registration token for ${res.tenantId} (scopes: ${res.scopes.join(' ')}; single use; expires ${expires}):`);
  console.log(res.token);
  console.log(`\nRegister with: POST ${res.registrationEndpoint}, header "Authorization: Bearer <token>".`);
}

/** The backend service's keys: a URL identity fetches them from, or a JWKS file read here. */
async function backendKeys(values: Call['values']): Promise<Record<string, unknown>> {
  const url = values['jwks-url'];
  const file = values['jwks-file'];
  if ((url === undefined) === (file === undefined)) throw new UsageError('give exactly one of --jwks-url and --jwks-file');
  if (url !== undefined) return { jwks_uri: url };
  try {
    return { jwks: JSON.parse(await readFile(file!, 'utf8')) as unknown };
  } catch (err) {
    throw new UsageError(`--jwks-file: ${(err as Error).message}`);
  }
}

/**
 * Registers through the same RFC 7591 endpoint every client uses (with a registration token this
 * administrator issues), so identity applies one set of rules whoever registers.
 */
async function registerBackendService({ identity, opts, values, actor }: Call): Promise<void> {
  if (!values.name || !values.scope) throw new UsageError('--name and --scope are required');
  const keys = await backendKeys(values);
  const grant = await identity.issueRegistrationToken({ actor: actor(), allowWrite: false, ttlSeconds: 60 }, opts);
  const res = await fetch(grant.registrationEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${grant.token}` },
    body: JSON.stringify({
      client_name: values.name,
      token_endpoint_auth_method: 'private_key_jwt',
      grant_types: ['client_credentials'],
      scope: values.scope,
      ...keys,
    }),
  });
  const body = (await res.json()) as { client_id?: string; error_description?: string; error?: string };
  if (res.status !== 201 || !body.client_id) throw new Error(`registration refused: ${body.error_description ?? body.error ?? res.status}`);
  console.log(`Registered backend service ${values.name} for ${grant.tenantId}: client id ${body.client_id} (scopes: ${values.scope}).`);
  console.log(`It signs its client assertions (RS384 or ES384) for the token endpoint next to ${grant.registrationEndpoint}.`);
}

async function listOAuthClients({ identity, opts, actor }: Call): Promise<void> {
  const res = await identity.listOAuthClients({ actor: actor() }, opts);
  console.log(
    res.clients.length
      ? table([
          ['CLIENT ID', 'NAME', 'TYPE', 'SCOPES', 'CREATED'],
          ...res.clients.map((c) => [c.clientId, c.name, c.public ? 'public' : 'confidential', c.scopes.join(' '), date(c.createdAt)]),
        ])
      : 'No OAuth clients yet.',
  );
}

async function revokeOAuthClient({ identity, opts, args, actor }: Call): Promise<void> {
  const [clientId] = args;
  if (!clientId) throw new UsageError('revoke-oauth-client <client-id> --as <admin>');
  const res = await identity.revokeOAuthClient({ actor: actor(), clientId }, opts);
  console.log(
    `Revoked ${res.client?.name || clientId} (${clientId}): disabled, its tokens and consents deleted; the gateway refuses its access tokens for ${res.usersNotified} user(s).`,
  );
}

/** Every command: how many positional arguments it takes (after the command itself), and what it runs. */
const COMMANDS = new Map<string, { arity: number; run: (call: Call) => Promise<void> }>([
  ['create-tenant', { arity: 2, run: createTenant }],
  ['list-tenants', { arity: 0, run: listTenants }],
  ['rotate-signing-key', { arity: 0, run: rotateSigningKey }],
  ['list-users', { arity: 0, run: listUsers }],
  ['invite', { arity: 2, run: invite }],
  ['change-role', { arity: 2, run: changeRole }],
  ['deactivate', { arity: 1, run: deactivate }],
  ['reactivate', { arity: 1, run: reactivate }],
  ['issue-registration-token', { arity: 0, run: issueRegistrationToken }],
  ['register-backend-service', { arity: 0, run: registerBackendService }],
  ['list-oauth-clients', { arity: 0, run: listOAuthClients }],
  ['revoke-oauth-client', { arity: 1, run: revokeOAuthClient }],
]);

/** An unquoted `--name Bidan Ani` leaves "Ani" as an extra argument: refuse rather than store half a name. */
function refuseExtraArguments(command: string, args: string[], arity: number): void {
  const extra = args.slice(arity);
  if (extra.length)
    throw new UsageError(
      `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((a) => `"${a}"`).join(' ')} for ${command}; quote a value with spaces, e.g. --name "Bidan Ani"`,
    );
}

/** The exit status for a failed command, after saying why on stderr. */
function failure(err: unknown, address: string): number {
  if (err instanceof UsageError) {
    console.error(`error: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (isStatus(err, grpc.status.UNAVAILABLE) || isStatus(err, grpc.status.DEADLINE_EXCEEDED)) {
    console.error(`error: cannot reach identity at ${address} (is it running? set IDENTITY_GRPC to its gRPC address)`);
    return 1;
  }
  const e = err as { code?: number; details?: string; message?: string };
  const status = typeof e.code === 'number' ? grpc.status[e.code] : undefined;
  console.error(`error: ${e.details || e.message}${status ? ` (${status})` : ''}`);
  return 1;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const [command, ...args] = positionals;
  if (!command || values.help || command === 'help') {
    console.log(USAGE);
    return command || values.help ? 0 : 1;
  }

  const address = process.env.IDENTITY_GRPC || '127.0.0.1:50051';
  const metadata = new grpc.Metadata();
  if (process.env.ADMIN_API_TOKEN) metadata.set('authorization', `Bearer ${process.env.ADMIN_API_TOKEN}`);
  const identity = identityClient(address);
  const opts = { metadata, timeoutMs: 15_000 };
  const actor = () => ref(values.as, '--as <admin>');
  try {
    const known = COMMANDS.get(command);
    if (!known) throw new UsageError(`unknown command "${command}"`);
    refuseExtraArguments(command, args, known.arity);
    await known.run({ identity, opts, args, values, actor });
    return 0;
  } catch (err) {
    return failure(err, address);
  } finally {
    identity.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  console.error(`error: ${(err as Error).message}\n\n${USAGE}`);
  process.exitCode = 2;
}
