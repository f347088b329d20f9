// The front desk (registration clerks, administrators): today's visits of every clinic with their
// state, checking a patient in, and cancelling with a reason. Visits only: this page issues no
// clinical query, whatever the role. Registering a visit starts from the patient's page.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { inferRouterOutputs } from '@trpc/server';
import { waitingMinutes, WORKLIST_REFRESH_MS } from '../lib/clinic.ts';
import { errorMessage } from '../lib/errors.ts';
import { useCan } from '../lib/session.tsx';
import { useTRPC } from '../lib/trpc.ts';
import type { AppRouter } from '../lib/trpc.ts';
import { ConfirmDialog, Loading, PageTitle, Status } from '../ui/kit.tsx';
import '../clinic/clinic.css';

type Visit = inferRouterOutputs<AppRouter>['kunjungan']['get'];

export default function FrontDesk() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.kunjungan.list.queryOptions({ limit: 200 }), refetchInterval: WORKLIST_REFRESH_MS });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.kunjungan.list.pathKey() });
  const arrive = useMutation(trpc.kunjungan.arrive.mutationOptions({ onSuccess: refresh }));
  const canArrive = useCan('kunjungan.arrive');
  const canCancel = useCan('kunjungan.cancel');
  const [cancelling, setCancelling] = useState<Visit>();
  return (
    <section>
      <PageTitle text={t('clinic.desk.title')} />
      <p className="hint">{t('clinic.desk.hint', { seconds: WORKLIST_REFRESH_MS / 1000 })}</p>
      <p>
        <Link to="/pasien">{t('clinic.desk.findPatient')}</Link>
      </p>
      {list.isPending ? <Loading /> : null}
      <Status message={list.isError ? errorMessage(t, list.error) : arrive.isError ? errorMessage(t, arrive.error) : undefined} error />
      {list.data?.length === 0 ? <p>{t('clinic.desk.empty')}</p> : null}
      {list.data?.length ? (
        <table id="desk-visits" className="responsive">
          <caption>{t('clinic.desk.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('clinic.desk.clinic')}</th>
              <th scope="col">{t('clinic.queue.number')}</th>
              <th scope="col">{t('clinic.desk.patient')}</th>
              <th scope="col">{t('clinic.desk.state')}</th>
              <th scope="col">{t('clinic.desk.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((v) => (
              <tr key={v.id} data-visit={v.id} data-status={v.status}>
                <td data-label={t('clinic.desk.clinic')}>{v.poliNama}</td>
                <td className="queue-no" data-label={t('clinic.queue.number')}>
                  {v.noAntrean}
                </td>
                <th scope="row">
                  <Link to={`/pasien/${v.pasienId}`}>{v.pasienNama}</Link> <span className="muted mono">{v.noRm}</span>
                </th>
                <td data-label={t('clinic.desk.state')}>
                  <span className={`state state-${v.status}`}>{t(`clinic.status.${v.status}`)}</span>
                  {v.status === 'planned' || v.status === 'arrived' ? (
                    <span className="muted">
                      {' '}
                      · {t('clinic.worklist.waiting', { count: waitingMinutes(v), minutes: waitingMinutes(v) })}
                    </span>
                  ) : null}
                  {v.cancelReason ? <span className="muted"> · {v.cancelReason}</span> : null}
                </td>
                <td data-label={t('clinic.desk.actions')}>
                  <div className="actions row-actions">
                    {canArrive && v.status === 'planned' ? (
                      <button
                        type="button"
                        className="secondary arrive"
                        onClick={() => arrive.mutate({ id: v.id, expectedVersion: v.version })}
                      >
                        {t('clinic.visit.arrive')}
                      </button>
                    ) : null}
                    {canCancel && (v.status === 'planned' || v.status === 'arrived') ? (
                      <button type="button" className="secondary danger cancel-visit" onClick={() => setCancelling(v)}>
                        {t('clinic.desk.cancel')}
                      </button>
                    ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <CancelDialog visit={cancelling} onDone={() => (setCancelling(undefined), refresh())} />
    </section>
  );
}

function CancelDialog({ visit, onDone }: { visit: Visit | undefined; onDone: () => void }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const [reason, setReason] = useState('');
  const cancel = useMutation(trpc.kunjungan.cancel.mutationOptions());
  const close = () => (setReason(''), cancel.reset(), onDone());
  return (
    <ConfirmDialog
      open={Boolean(visit)}
      title={t('clinic.desk.cancelTitle', { name: visit?.pasienNama ?? '', number: visit?.noAntrean ?? '' })}
      confirmLabel={t('clinic.desk.cancel')}
      danger
      busy={cancel.isPending}
      ready={reason.trim().length > 0}
      onConfirm={() =>
        visit && cancel.mutate({ id: visit.id, expectedVersion: visit.version, reason: reason.trim() }, { onSuccess: close })
      }
      onCancel={close}
    >
      <label htmlFor="cancel-reason">
        {t('clinic.desk.cancelReason')} <span className="required">({t('common.required')})</span>
      </label>
      <input id="cancel-reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} required />
      <Status message={cancel.isError ? errorMessage(t, cancel.error) : undefined} error />
    </ConfirmDialog>
  );
}
