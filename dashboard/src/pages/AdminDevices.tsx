// Tenant administration: device codes (RFC 8628) of this hospital's applications still waiting for
// someone to approve or deny them. User codes are not shown in full: only the person at the device,
// who sees the whole code on its screen, approves it (on the Connect a device page).
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { identity } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { Loading, PageTitle, Status } from '../ui/kit.tsx';
import { ScopeList } from '../ui/ScopeList.tsx';

export default function AdminDevices() {
  const { t } = useTranslation();
  const f = useFormat();
  // Device codes live minutes: refreshed while the page is open.
  const requests = useQuery({ queryKey: ['identity', 'device-requests'], queryFn: identity.deviceRequests, refetchInterval: 5000 });
  return (
    <section>
      <PageTitle text={t('integrations.pendingTitle')} />
      <p className="lead">{t('integrations.pendingLead')}</p>
      <p>
        <Link to="/perangkat">{t('device.open')}</Link>
      </p>
      {requests.isPending ? <Loading /> : null}
      {requests.isError ? <Status message={errorMessage(t, requests.error)} error /> : null}
      {requests.data?.requests.length === 0 ? <p id="no-device-requests">{t('integrations.pendingNone')}</p> : null}
      {requests.data?.requests.length ? (
        <table className="responsive" id="device-requests">
          <caption className="visually-hidden">{t('integrations.pendingTitle')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('integrations.pendingClient')}</th>
              <th scope="col">{t('integrations.pendingScope')}</th>
              <th scope="col">{t('integrations.pendingCode')}</th>
              <th scope="col">{t('integrations.pendingSince')}</th>
              <th scope="col">{t('integrations.pendingUntil')}</th>
            </tr>
          </thead>
          <tbody>
            {requests.data.requests.map((r, i) => (
              <tr key={`${r.clientId}-${String(r.expiresAt)}-${i}`} data-client-id={r.clientId}>
                <td data-label={t('integrations.pendingClient')}>{r.clientName || r.clientId}</td>
                <td data-label={t('integrations.pendingScope')}>
                  <ScopeList scopes={(r.scope ?? '').split(' ').filter(Boolean)} />
                </td>
                <td data-label={t('integrations.pendingCode')} className="mono">
                  {r.userCodeHint}
                </td>
                <td data-label={t('integrations.pendingSince')}>{f.dateTime(r.createdAt)}</td>
                <td data-label={t('integrations.pendingUntil')}>{f.dateTime(r.expiresAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
