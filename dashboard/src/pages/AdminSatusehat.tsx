// SATUSEHAT for the hospital's administrator: each visit's latest send, filtered by state (failed by
// default), with the platform's words or what is missing, and a resend button once it is fixed. The
// list refreshes while the page is open, so a resent visit shows as sent when it is.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useTRPC } from '../lib/trpc.ts';
import { Loading, PageTitle, SelectField, Status } from '../ui/kit.tsx';
import { SatusehatConnection } from './SatusehatConnection.tsx';
import { SatusehatPractitioner } from './SatusehatPractitioner.tsx';

const STATES = ['failed', 'incomplete', 'queued', 'sent'] as const;
type State = (typeof STATES)[number];

interface Send {
  id: number;
  kunjunganId: string;
  noKunjungan: string;
  tanggal: string;
  state: State;
  lastError: string | null;
  attempts: number;
}

function SendRow({ row, busy, onResend }: { row: Send; busy: boolean; onResend: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <tr data-visit={row.kunjunganId} data-state={row.state}>
      <td data-label={t('satusehat.visit')} className="mono">
        {row.noKunjungan}
      </td>
      <td data-label={t('satusehat.date')}>{f.date(row.tanggal)}</td>
      <td data-label={t('satusehat.stateLabel')} className="sync-state">
        {t(`satusehat.state.${row.state}`)}
      </td>
      <td data-label={t('satusehat.reason')} className="sync-reason">
        {row.lastError ?? ''}
      </td>
      <td data-label={t('satusehat.attempts')}>{row.attempts}</td>
      <td>
        {row.state === 'failed' || row.state === 'incomplete' ? (
          <button
            type="button"
            className="resend"
            aria-label={t('satusehat.resendVisit', { no: row.noKunjungan })}
            disabled={busy}
            onClick={onResend}
          >
            {t('satusehat.resend')}
          </button>
        ) : null}
      </td>
    </tr>
  );
}

export default function AdminSatusehat() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<State | ''>('failed');
  const [message, setMessage] = useState<string>();
  const list = useQuery({ ...trpc.satusehat.list.queryOptions({ ...(state ? { state } : {}), limit: 50 }), refetchInterval: 2000 });
  const resend = useMutation(trpc.satusehat.resend.mutationOptions());
  const options = [{ value: '', label: t('satusehat.all') }, ...STATES.map((s) => ({ value: s, label: t(`satusehat.state.${s}`) }))];
  function again(kunjunganId: string, no: string) {
    resend.mutate(
      { kunjunganId },
      {
        onSuccess: () => (
          setMessage(t('satusehat.resent', { no })),
          void queryClient.invalidateQueries({ queryKey: trpc.satusehat.list.queryKey() })
        ),
        onError: (err) => setMessage(errorMessage(t, err)),
      },
    );
  }
  return (
    <section>
      <PageTitle text={t('satusehat.title')} />
      <p className="lead">{t('satusehat.lead')}</p>
      <SatusehatConnection />
      <SatusehatPractitioner />
      <div className="inline-form">
        <SelectField
          name="satusehat-state"
          label={t('satusehat.filter')}
          value={state}
          options={options}
          onValue={(v) => setState(v as State | '')}
        />
      </div>
      <Status message={message} error={resend.isError} id="satusehat-status" />
      {list.isPending ? <Loading /> : null}
      {list.isError ? <Status message={errorMessage(t, list.error)} error /> : null}
      {list.data?.length === 0 ? <p id="satusehat-empty">{t('satusehat.empty')}</p> : null}
      {list.data?.length ? (
        <table className="responsive" id="satusehat-list">
          <caption className="visually-hidden">{t('satusehat.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('satusehat.visit')}</th>
              <th scope="col">{t('satusehat.date')}</th>
              <th scope="col">{t('satusehat.stateLabel')}</th>
              <th scope="col">{t('satusehat.reason')}</th>
              <th scope="col">{t('satusehat.attempts')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('satusehat.resend')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((row) => (
              <SendRow key={row.id} row={row} busy={resend.isPending} onResend={() => again(row.kunjunganId, row.noKunjungan)} />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
