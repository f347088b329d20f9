// My account: the sessions signed in as me (device and browser as a person reads them, address, when),
// end one or every other; my passkeys (add, rename, delete); the language.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { authClient, identity, unwrap } from '../lib/auth.ts';
import { describeAgent } from '../lib/device.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useUser } from '../lib/session.tsx';
import { LanguageSelect } from '../ui/LanguageSelect.tsx';
import { ConfirmDialog, Loading, PageTitle, Status } from '../ui/kit.tsx';

export default function Account() {
  const { t } = useTranslation();
  const user = useUser();
  const [status, setStatus] = useState<{ message: string; error: boolean }>();
  const say = (message: string, error = false) => setStatus({ message, error });
  return (
    <section>
      <PageTitle text={t('account.title')} />
      <p className="meta" id="account-who">
        {user.name} · {user.email} · {t(`role.${user.role as 'doctor'}`, { defaultValue: user.role })}
      </p>
      <Status message={status?.message} error={status?.error} id="account-status" />
      <Sessions say={say} />
      <Passkeys say={say} />
      <section aria-labelledby="language-title" className="card">
        <h2 id="language-title">{t('account.language')}</h2>
        <p className="hint">{t('account.languageHint')}</p>
        <LanguageSelect />
      </section>
      <section aria-labelledby="device-title" className="card">
        <h2 id="device-title">{t('device.title')}</h2>
        <p>{t('device.lead')}</p>
        <Link to="/perangkat" className="button secondary">
          {t('device.open')}
        </Link>
      </section>
    </section>
  );
}

type Say = (message: string, error?: boolean) => void;

function Sessions({ say }: { say: Say }) {
  const { t } = useTranslation();
  const f = useFormat();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['identity', 'sessions'], queryFn: identity.sessions });
  const [confirmAll, setConfirmAll] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['identity', 'sessions'] });
  const revoke = useMutation({
    mutationFn: identity.revokeSession,
    onSuccess: () => (say(t('account.sessionEnded')), refresh()),
    onError: (err) => say(errorMessage(t, err), true),
  });
  const revokeAll = useMutation({
    mutationFn: identity.revokeOtherSessions,
    onSuccess: () => (setConfirmAll(false), say(t('account.othersEnded')), refresh()),
    onError: (err) => say(errorMessage(t, err), true),
  });
  const list = [...(sessions.data ?? [])].sort(
    (a, b) => Number(b.current) - Number(a.current) || new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime(),
  );
  const others = list.filter((s) => !s.current).length;
  return (
    <section aria-labelledby="sessions-title" className="card">
      <h2 id="sessions-title">{t('account.sessions')}</h2>
      {sessions.isPending ? <Loading /> : null}
      {sessions.isError ? <Status message={errorMessage(t, sessions.error)} error /> : null}
      <ul className="items" id="session-list">
        {list.map((s) => {
          const device = describeAgent(s.userAgent);
          const label = device ? t('account.browserOn', { browser: device.browser, os: device.os }) : t('account.unknownDevice');
          return (
            <li key={s.id} data-session-id={s.id} data-current={String(s.current)}>
              <div>
                <strong className="session-device">{label}</strong>
                {device && device.kind !== 'unknown' ? <span className="badge">{t(`account.kind.${device.kind}`)}</span> : null}
                {s.current ? <span className="badge current">{t('account.thisBrowser')}</span> : null}
                <br />
                <small>
                  {t('account.sessionMeta', {
                    ip: s.ipAddress ?? t('account.unknownAddress'),
                    since: f.dateTime(s.createdAt),
                    active: f.relative(s.updatedAt),
                  })}
                </small>
              </div>
              {s.current ? null : (
                <button
                  type="button"
                  className="secondary revoke-session"
                  onClick={() => revoke.mutate(s.id)}
                  disabled={revoke.isPending}
                  aria-label={t('account.endSessionOf', { device: label })}
                >
                  {t('account.endSession')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {others > 0 ? (
        <button type="button" id="revoke-other-sessions" className="danger" onClick={() => setConfirmAll(true)}>
          {t('account.endOthers')}
        </button>
      ) : null}
      <ConfirmDialog
        open={confirmAll}
        title={t('account.endOthersTitle')}
        confirmLabel={t('account.endOthers')}
        danger
        busy={revokeAll.isPending}
        onConfirm={() => revokeAll.mutate()}
        onCancel={() => setConfirmAll(false)}
      >
        <p>{t('account.endOthersText', { count: others })}</p>
      </ConfirmDialog>
    </section>
  );
}

interface PasskeyRow {
  id: string;
  name?: string | null;
  createdAt: string | Date;
  deviceType?: string;
}

type Renaming = { id: string; name: string };

/** My passkeys, and adding, renaming and deleting them (each answered in the page's status line). */
function usePasskeys(say: Say) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const key = ['identity', 'passkeys'];
  const passkeys = useQuery({ queryKey: key, queryFn: () => unwrap(authClient.passkey.listUserPasskeys()) as Promise<PasskeyRow[]> });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<Renaming>();
  const [deleting, setDeleting] = useState<PasskeyRow>();
  const add = useMutation({
    mutationFn: async () => unwrap(authClient.passkey.addPasskey({ name: name.trim() || undefined })),
    onSuccess: () => (setName(''), say(t('account.passkeyAdded')), refresh()),
    onError: (err) => say(errorMessage(t, err), true),
  });
  const rename = useMutation({
    mutationFn: async (v: Renaming) => unwrap(authClient.passkey.updatePasskey(v)),
    onSuccess: () => (setRenaming(undefined), say(t('account.passkeyRenamed')), refresh()),
    onError: (err) => say(errorMessage(t, err), true),
  });
  const remove = useMutation({
    mutationFn: async (id: string) => unwrap(authClient.passkey.deletePasskey({ id })),
    onSuccess: () => (setDeleting(undefined), say(t('account.passkeyDeleted')), refresh()),
    onError: (err) => say(errorMessage(t, err), true),
  });
  return { passkeys, name, setName, renaming, setRenaming, deleting, setDeleting, add, rename, remove };
}

type PasskeyState = ReturnType<typeof usePasskeys>;

function RenamePasskeyForm({
  p,
  renaming,
  setRenaming,
  rename,
}: Pick<PasskeyState, 'setRenaming' | 'rename'> & { p: PasskeyRow; renaming: Renaming }) {
  const { t } = useTranslation();
  return (
    <form className="inline" onSubmit={(e) => (e.preventDefault(), rename.mutate(renaming))}>
      <label htmlFor={`rename-${p.id}`} className="visually-hidden">
        {t('account.passkeyName')}
      </label>
      <input
        id={`rename-${p.id}`}
        value={renaming.name}
        maxLength={60}
        onChange={(e) => setRenaming({ id: p.id, name: e.target.value })}
        autoFocus
      />
      <button type="submit" className="save-passkey-name" disabled={rename.isPending || !renaming.name.trim()}>
        {t('common.save')}
      </button>
      <button type="button" className="secondary" onClick={() => setRenaming(undefined)}>
        {t('common.cancel')}
      </button>
    </form>
  );
}

function PasskeyItem({ p, state }: { p: PasskeyRow; state: PasskeyState }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { renaming, setRenaming, setDeleting, rename } = state;
  return (
    <li data-passkey-id={p.id}>
      {renaming?.id === p.id ? (
        <RenamePasskeyForm p={p} renaming={renaming} setRenaming={setRenaming} rename={rename} />
      ) : (
        <>
          <div>
            <strong className="passkey-name">{p.name || t('account.passkeyUnnamed')}</strong>
            <br />
            <small>{t('account.passkeyAddedOn', { when: f.dateTime(p.createdAt) })}</small>
          </div>
          <div className="actions">
            <button type="button" className="secondary rename-passkey" onClick={() => setRenaming({ id: p.id, name: p.name ?? '' })}>
              {t('account.rename')}
            </button>
            <button type="button" className="danger delete-passkey" onClick={() => setDeleting(p)}>
              {t('common.delete')}
            </button>
          </div>
        </>
      )}
    </li>
  );
}

function AddPasskeyForm({ name, setName, add }: Pick<PasskeyState, 'name' | 'setName' | 'add'>) {
  const { t } = useTranslation();
  const submitAdd = (e: FormEvent) => (e.preventDefault(), add.mutate());
  return (
    <form className="inline" id="add-passkey-form" onSubmit={submitAdd}>
      <label htmlFor="passkey-name">{t('account.passkeyName')}</label>
      <input
        id="passkey-name"
        value={name}
        maxLength={60}
        onChange={(e) => setName(e.target.value)}
        placeholder={t('account.passkeyNamePlaceholder')}
      />
      <button type="submit" id="add-passkey" disabled={add.isPending}>
        {t('account.addPasskey')}
      </button>
    </form>
  );
}

function Passkeys({ say }: { say: Say }) {
  const { t } = useTranslation();
  const state = usePasskeys(say);
  const { passkeys, deleting, setDeleting, remove } = state;
  return (
    <section aria-labelledby="passkeys-title" className="card">
      <h2 id="passkeys-title">{t('account.passkeys')}</h2>
      <p className="hint">{t('account.passkeysHint')}</p>
      {passkeys.isPending ? <Loading /> : null}
      <ul className="items" id="passkey-list">
        {passkeys.data?.length === 0 ? <li className="empty">{t('account.noPasskeys')}</li> : null}
        {passkeys.data?.map((p) => (
          <PasskeyItem key={p.id} p={p} state={state} />
        ))}
      </ul>
      <AddPasskeyForm name={state.name} setName={state.setName} add={state.add} />
      <ConfirmDialog
        open={Boolean(deleting)}
        title={t('account.deletePasskeyTitle', { name: deleting?.name || t('account.passkeyUnnamed') })}
        confirmLabel={t('common.delete')}
        danger
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onCancel={() => setDeleting(undefined)}
      >
        <p>{t('account.deletePasskeyText')}</p>
      </ConfirmDialog>
    </section>
  );
}
