// The auditor's list of break-the-glass accesses (records' btg.list): who opened which patient's
// clinical record without a treatment relationship, when, until when, and the reason they wrote.
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useTRPC } from '../lib/trpc.ts';
import { Loading, Status } from './kit.tsx';

export function BreakGlassLog({ names }: { names: Map<string, string> }) {
  const { t } = useTranslation();
  const f = useFormat();
  const trpc = useTRPC();
  const grants = useQuery(trpc.btg.list.queryOptions({ limit: 200 }));
  return (
    <section aria-labelledby="btg-log-title" id="btg-accesses">
      <h2 id="btg-log-title">{t('auditClinical.btg.title')}</h2>
      <p className="hint">{t('auditClinical.btg.lead')}</p>
      {grants.isPending ? <Loading /> : null}
      {grants.isError ? <Status message={errorMessage(t, grants.error)} error /> : null}
      {grants.data?.length === 0 ? <p id="btg-none">{t('auditClinical.btg.none')}</p> : null}
      {grants.data?.length ? (
        <table className="responsive btg-table">
          <caption className="visually-hidden">{t('auditClinical.btg.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('auditClinical.btg.opened')}</th>
              <th scope="col">{t('audit.who')}</th>
              <th scope="col">{t('audit.patients')}</th>
              <th scope="col">{t('clinic.btg.reason')}</th>
              <th scope="col">{t('auditClinical.btg.until')}</th>
            </tr>
          </thead>
          <tbody>
            {grants.data.map((g) => (
              <tr key={g.id} data-grant={g.id} data-user={g.userId} data-pasien={g.pasienId}>
                <td data-label={t('auditClinical.btg.opened')}>
                  <time dateTime={g.openedAt}>{f.dateTime(g.openedAt)}</time>
                </td>
                <td data-label={t('audit.who')}>
                  <span className="actor-name">{names.get(g.userId) ?? g.userId}</span>
                  <br />
                  <small>{t(`role.${g.userRole as 'doctor'}`, { defaultValue: g.userRole })}</small>
                </td>
                <td data-label={t('audit.patients')}>
                  <span className="mono small">{g.pasienId}</span>
                </td>
                <td data-label={t('clinic.btg.reason')} className="btg-reason">
                  {g.reason}
                </td>
                <td data-label={t('auditClinical.btg.until')}>
                  <time dateTime={g.expiresAt}>{f.dateTime(g.expiresAt)}</time>
                  <br />
                  <small>{g.active ? t('auditClinical.btg.active') : t('auditClinical.btg.expired')}</small>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
