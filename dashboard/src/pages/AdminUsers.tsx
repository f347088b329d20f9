// Tenant administration: the hospital's people. Invite with a role chosen explicitly (no default),
// change a role, deactivate or reactivate, each after a confirmation that names the person and says
// what happens to their sessions. identity's tenant endpoints (services/identity account-api.ts).
import { useState } from 'react';
import type { FormEvent } from 'react';
import type { TFunction } from 'i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ROLES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import { identity } from '../lib/auth.ts';
import type { TenantUser } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useUser } from '../lib/session.tsx';
import { ConfirmDialog, Loading, PageTitle, SelectField, Status, TextField } from '../ui/kit.tsx';

type Pending =
  { kind: 'deactivate'; user: TenantUser } | { kind: 'reactivate'; user: TenantUser } | { kind: 'role'; user: TenantUser; role: Role };
const KEY = ['identity', 'users'];

type RoleName = (r: string) => string;

/** What the confirmation says for each pending action. */
function confirmation(t: TFunction, p: Pending, roleName: RoleName) {
  const { name, email } = p.user;
  if (p.kind === 'deactivate')
    return {
      title: t('users.deactivateTitle', { name }),
      text: t('users.deactivateText', { name, email }),
      confirm: t('users.deactivate'),
      danger: true,
    };
  if (p.kind === 'reactivate')
    return {
      title: t('users.reactivateTitle', { name }),
      text: t('users.reactivateText', { name, email }),
      confirm: t('users.reactivate'),
      danger: false,
    };
  return {
    title: t('users.roleTitle', { name }),
    text: t('users.roleText', { name, from: roleName(p.user.role), to: roleName(p.role) }),
    confirm: t('users.changeRole'),
    danger: false,
  };
}

/** Runs a confirmed action and reports what it did (or why not) as the page's status. */
function useUserAction(roleName: RoleName, done: (message: string, error: boolean) => void) {
  const { t } = useTranslation();
  return useMutation({
    mutationFn: async (p: Pending) => {
      if (p.kind === 'deactivate')
        return t('users.deactivated', { name: p.user.name, count: (await identity.deactivate(p.user.id)).sessionsEnded });
      if (p.kind === 'reactivate') return (await identity.reactivate(p.user.id), t('users.reactivated', { name: p.user.name }));
      return (await identity.changeRole(p.user.id, p.role), t('users.roleChanged', { name: p.user.name, role: roleName(p.role) }));
    },
    onSuccess: (message) => done(message, false),
    onError: (err) => done(errorMessage(t, err), true),
  });
}

export default function AdminUsers() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const users = useQuery({ queryKey: KEY, queryFn: identity.users });
  const [status, setStatus] = useState<{ message: string; error: boolean }>();
  const [pending, setPending] = useState<Pending>();
  const [roleDraft, setRoleDraft] = useState<Record<string, Role>>({});
  const roleName = (r: string) => t(`role.${r as Role}`, { defaultValue: r });
  const refresh = () => queryClient.invalidateQueries({ queryKey: KEY });
  const act = useUserAction(roleName, (message, error) => (setPending(undefined), setStatus({ message, error }), error || refresh()));
  const dialog = pending ? confirmation(t, pending, roleName) : undefined;

  return (
    <section>
      <PageTitle text={t('users.title')} />
      {users.data ? <p className="lead">{t('users.lead', { tenant: users.data.tenant.name })}</p> : null}
      <Status message={status?.message} error={status?.error} id="users-status" />
      <Invite onDone={(message, error) => (setStatus({ message, error }), error || void refresh())} />
      <h2>{t('users.people')}</h2>
      {users.isPending ? <Loading /> : null}
      {users.isError ? <Status message={errorMessage(t, users.error)} error /> : null}
      {users.data ? (
        <UsersTable
          users={users.data.users}
          roleName={roleName}
          roleDraft={roleDraft}
          onDraft={(id, role) => setRoleDraft({ ...roleDraft, [id]: role })}
          onPending={setPending}
        />
      ) : null}
      <ConfirmDialog
        open={Boolean(pending)}
        title={dialog?.title ?? ''}
        confirmLabel={dialog?.confirm ?? ''}
        danger={dialog?.danger ?? false}
        busy={act.isPending}
        onConfirm={() => pending && act.mutate(pending)}
        onCancel={() => setPending(undefined)}
      >
        <p id="confirm-text">{dialog?.text}</p>
      </ConfirmDialog>
    </section>
  );
}

interface RowProps {
  roleName: RoleName;
  onPending: (p: Pending) => void;
}

function UsersTable({
  users,
  roleDraft,
  onDraft,
  ...row
}: RowProps & { users: TenantUser[]; roleDraft: Record<string, Role>; onDraft: (id: string, role: Role) => void }) {
  const { t } = useTranslation();
  const me = useUser();
  return (
    <table className="responsive" id="user-table">
      <caption className="visually-hidden">{t('users.people')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('users.person')}</th>
          <th scope="col">{t('users.role')}</th>
          <th scope="col">{t('users.state')}</th>
          <th scope="col">{t('users.actions')}</th>
        </tr>
      </thead>
      <tbody>
        {users.map((u) => (
          <UserRow
            key={u.id}
            u={u}
            self={u.id === me.id}
            draft={roleDraft[u.id] ?? u.role}
            onDraft={(role) => onDraft(u.id, role)}
            {...row}
          />
        ))}
      </tbody>
    </table>
  );
}

function UserRow({
  u,
  self,
  draft,
  onDraft,
  roleName,
  onPending,
}: RowProps & { u: TenantUser; self: boolean; draft: Role; onDraft: (role: Role) => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <tr data-user-id={u.id} data-email={u.email} data-active={String(u.active)}>
      <td data-label={t('users.person')}>
        <strong>{u.name}</strong>
        {self ? ` (${t('users.you')})` : ''}
        <br />
        <small>{u.email}</small>
      </td>
      <td data-label={t('users.role')}>
        {self || !u.active ? (
          roleName(u.role)
        ) : (
          <RoleForm u={u} draft={draft} onDraft={onDraft} roleName={roleName} onPending={onPending} />
        )}
      </td>
      <td data-label={t('users.state')}>
        {u.active ? t('users.active') : <span className="badge">{t('users.inactive')}</span>}
        <br />
        <small>{t('users.since', { when: f.dateTime(u.createdAt) })}</small>
        <br />
        <small className="last-sign-in">
          {u.lastSignInAt ? t('users.lastSignIn', { when: f.dateTime(u.lastSignInAt) }) : t('users.neverSignedIn')}
        </small>
      </td>
      <td data-label={t('users.actions')}>{self ? null : <ActiveToggle u={u} onPending={onPending} />}</td>
    </tr>
  );
}

/** A role picker and its button; the change itself waits for the confirmation. */
function RoleForm({ u, draft, onDraft, roleName, onPending }: RowProps & { u: TenantUser; draft: Role; onDraft: (role: Role) => void }) {
  const { t } = useTranslation();
  return (
    <form className="inline" onSubmit={(e) => (e.preventDefault(), draft !== u.role && onPending({ kind: 'role', user: u, role: draft }))}>
      <label htmlFor={`role-${u.id}`} className="visually-hidden">
        {t('users.roleOf', { name: u.name })}
      </label>
      <select id={`role-${u.id}`} className="role-select" value={draft} onChange={(e) => onDraft(e.target.value as Role)}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {roleName(r)}
          </option>
        ))}
      </select>
      <button
        type="submit"
        className="secondary change-role"
        disabled={draft === u.role}
        aria-label={t('users.changeRoleOf', { name: u.name })}
      >
        {t('users.changeRole')}
      </button>
    </form>
  );
}

/** Deactivate an active user, reactivate an inactive one (after the confirmation). */
function ActiveToggle({ u, onPending }: Pick<RowProps, 'onPending'> & { u: TenantUser }) {
  const { t } = useTranslation();
  return u.active ? (
    <button
      type="button"
      className="danger deactivate-user"
      onClick={() => onPending({ kind: 'deactivate', user: u })}
      aria-label={t('users.deactivateWho', { name: u.name })}
    >
      {t('users.deactivate')}
    </button>
  ) : (
    <button
      type="button"
      className="secondary reactivate-user"
      onClick={() => onPending({ kind: 'reactivate', user: u })}
      aria-label={t('users.reactivateWho', { name: u.name })}
    >
      {t('users.reactivate')}
    </button>
  );
}

function Invite({ onDone }: { onDone: (message: string, error: boolean) => void }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState('');
  const [errors, setErrors] = useState<{ email?: string; role?: string }>({});
  const invite = useMutation({
    mutationFn: identity.invite,
    onSuccess: ({ user }) => (setEmail(''), setName(''), setRole(''), onDone(t('users.invited', { email: user.email }), false)),
    onError: (err) => onDone(errorMessage(t, err), true),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const problems = {
      ...(/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim()) ? {} : { email: t('fieldError.email') }),
      ...(role ? {} : { role: t('users.chooseRole') }),
    };
    setErrors(problems);
    if (Object.keys(problems).length === 0)
      invite.mutate({ email: email.trim(), role: role as Role, ...(name.trim() ? { name: name.trim() } : {}) });
  };
  return (
    <form className="card grid" id="invite-form" onSubmit={submit} noValidate aria-labelledby="invite-title">
      <h2 id="invite-title" className="span-all">
        {t('users.invite')}
      </h2>
      <TextField
        label={t('users.email')}
        name="email"
        type="email"
        value={email}
        onValue={setEmail}
        required
        error={errors.email}
        autoComplete="off"
      />
      <TextField label={t('users.name')} name="name" value={name} onValue={setName} maxLength={200} autoComplete="off" />
      <SelectField
        label={t('users.role')}
        name="role"
        value={role}
        onValue={setRole}
        required
        error={errors.role}
        placeholder={t('users.chooseRole')}
        options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))}
      />
      <div className="field actions-end">
        <button type="submit" id="send-invite" disabled={invite.isPending}>
          {t('users.sendInvite')}
        </button>
      </div>
    </form>
  );
}
