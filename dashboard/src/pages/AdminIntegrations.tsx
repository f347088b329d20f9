// Tenant administration: integrations. The OAuth clients registered for this hospital (each can be
// revoked with everything it holds, after a confirmation naming it), and a single-use registration
// token (initial access token, RFC 7591) with or without write access.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { identity } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import type { OAuthClient } from '../lib/auth.ts';
import { ConfirmDialog, Loading, PageTitle, SelectField, Status } from '../ui/kit.tsx';
import { ScopeList } from '../ui/ScopeList.tsx';
import { BackendServiceForm } from './BackendServiceForm.tsx';

const KEY = ['identity', 'oauth-clients'];
const LIFETIMES = [3600, 86400, 7 * 86400];

/** A backend service acts for itself with the client-credentials grant alone, and has no redirect. */
const isBackendService = (c: OAuthClient) => c.grantTypes.length === 1 && c.grantTypes[0] === 'client_credentials';

export default function AdminIntegrations() {
  const { t } = useTranslation();
  const f = useFormat();
  const queryClient = useQueryClient();
  const clientKind = (c: OAuthClient) =>
    t(isBackendService(c) ? 'backend.kind' : c.public ? 'integrations.public' : 'integrations.confidential');
  const clients = useQuery({ queryKey: KEY, queryFn: identity.oauthClients });
  const [pending, setPending] = useState<OAuthClient>();
  const [status, setStatus] = useState<{ message: string; error: boolean }>();
  const revoke = useMutation({
    mutationFn: (client: OAuthClient) => identity.revokeOAuthClient(client.clientId),
    onSuccess: (_r, client) => setStatus({ message: t('integrations.revoked', { name: client.name || client.clientId }), error: false }),
    onError: (err) => setStatus({ message: errorMessage(t, err), error: true }),
    onSettled: () => (setPending(undefined), void queryClient.invalidateQueries({ queryKey: KEY })),
  });
  return (
    <section>
      <PageTitle text={t('integrations.title')} />
      <p className="lead">{t('integrations.lead')}</p>
      <IssueToken />
      <BackendServiceForm listKey={KEY} />
      <h2>{t('integrations.clients')}</h2>
      {status ? <Status message={status.message} error={status.error} id="integrations-status" /> : null}
      {clients.isPending ? <Loading /> : null}
      {clients.isError ? <Status message={errorMessage(t, clients.error)} error /> : null}
      {clients.data?.clients.length === 0 ? <p id="no-clients">{t('integrations.none')}</p> : null}
      <ul className="items clients" id="client-list">
        {clients.data?.clients.map((c) => (
          <li key={c.clientId} data-client-id={c.clientId} className="client">
            <div>
              <h3>{c.name || c.clientId}</h3>
              <p className="small">
                <span className="mono">{c.clientId}</span> · {clientKind(c)} ·{' '}
                {t('integrations.registered', { when: f.dateTime(c.createdAt) })}
                {c.disabled ? <span className="badge">{t('integrations.disabled')}</span> : null}
              </p>
              <ScopeList scopes={c.scopes} />
              {isBackendService(c) ? null : (
                <p className="small">
                  {t('integrations.redirects')}: {c.redirectUris.join(', ') || '—'}
                </p>
              )}
            </div>
            {c.disabled ? null : (
              <div className="actions">
                <button
                  type="button"
                  className="danger revoke-client"
                  aria-label={t('integrations.revokeWho', { name: c.name || c.clientId })}
                  onClick={() => setPending(c)}
                >
                  {t('integrations.revoke')}
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={Boolean(pending)}
        title={t('integrations.revokeTitle', { name: pending?.name || pending?.clientId })}
        confirmLabel={t('integrations.revoke')}
        danger
        busy={revoke.isPending}
        onConfirm={() => pending && revoke.mutate(pending)}
        onCancel={() => setPending(undefined)}
      >
        <p>{t('integrations.revokeText', { name: pending?.name || pending?.clientId })}</p>
      </ConfirmDialog>
      <p className="hint">
        {t('integrations.docs')} <a href="/api/v1/docs">{t('nav.apiDocs')}</a> · <a href="/playground/">{t('nav.playground')}</a>
      </p>
    </section>
  );
}

function IssueToken() {
  const { t } = useTranslation();
  const f = useFormat();
  const queryClient = useQueryClient();
  const [allowWrite, setAllowWrite] = useState(false);
  const [ttl, setTtl] = useState(String(LIFETIMES[1]));
  const [copied, setCopied] = useState(false);
  const issue = useMutation({
    mutationFn: () => identity.issueRegistrationToken(allowWrite, Number(ttl)),
    onSuccess: () => (setCopied(false), void queryClient.invalidateQueries({ queryKey: KEY })),
  });
  const submit = (e: FormEvent) => (e.preventDefault(), issue.mutate());
  const copy = async () => {
    if (!issue.data) return;
    await navigator.clipboard?.writeText(issue.data.token).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <form className="card" id="token-form" onSubmit={submit} aria-labelledby="token-title">
      <h2 id="token-title">{t('integrations.issue')}</h2>
      <p className="hint">{t('integrations.issueHint')}</p>
      <div className="checkbox">
        <input id="allow-write" type="checkbox" checked={allowWrite} onChange={(e) => setAllowWrite(e.target.checked)} />
        <label htmlFor="allow-write">{t('integrations.allowWrite')}</label>
      </div>
      <SelectField
        label={t('integrations.lifetime')}
        name="ttl"
        value={ttl}
        onValue={setTtl}
        options={LIFETIMES.map((s) => ({
          value: String(s),
          label:
            s < 86400
              ? t('integrations.hours', { count: s / 3600, n: f.number(s / 3600) })
              : t('integrations.days', { count: s / 86400, n: f.number(s / 86400) }),
        }))}
      />
      <div className="actions">
        <button type="submit" id="issue-token" disabled={issue.isPending}>
          {t('integrations.issueButton')}
        </button>
      </div>
      {issue.isError ? <Status message={errorMessage(t, issue.error)} error /> : null}
      {issue.data ? (
        <div className="token" id="issued-token" role="status">
          <p>{t('integrations.issued', { when: f.dateTime(issue.data.expiresAt) })}</p>
          <label htmlFor="token-value">{t('integrations.token')}</label>
          <div className="inline">
            <input id="token-value" readOnly value={issue.data.token} onFocus={(e) => e.target.select()} className="mono" />
            <button type="button" className="secondary" onClick={() => void copy()}>
              {copied ? t('integrations.copied') : t('integrations.copy')}
            </button>
          </div>
          <ScopeList scopes={issue.data.scopes} />
          <p className="hint">{t('integrations.register', { url: `${window.location.origin}/api/auth/oauth2/register` })}</p>
        </div>
      ) : null}
    </form>
  );
}
