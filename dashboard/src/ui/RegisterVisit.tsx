// Registering a visit from the patient's page (kunjungan.register): choose the clinic, get the queue
// number, large, on a slip that prints alone (print CSS hides the rest of the page).
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useTRPC } from '../lib/trpc.ts';
import { SelectField, Status } from './kit.tsx';
import '../clinic/clinic.css';

export function RegisterVisit({ pasienId }: { pasienId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const clinics = useQuery(trpc.poli.list.queryOptions());
  const [poliId, setPoliId] = useState('');
  const [error, setError] = useState<string>();
  const register = useMutation(trpc.kunjungan.register.mutationOptions());

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    register.mutate(
      { pasienId, poliId },
      {
        onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.kunjungan.list.pathKey() }),
        onError: (err) => setError(fieldErrorsOf(t, err).poliId ?? errorMessage(t, err)),
      },
    );
  }

  return (
    <section aria-labelledby="register-visit-title" id="register-visit">
      <h2 id="register-visit-title">{t('clinic.register.title')}</h2>
      <form onSubmit={submit} noValidate className="inline-form">
        <SelectField
          name="visit-clinic"
          label={t('clinic.register.clinic')}
          value={poliId}
          error={error}
          required
          placeholder={t('common.choose')}
          options={(clinics.data ?? []).map((c) => ({ value: c.id, label: c.nama }))}
          onValue={setPoliId}
        />
        <button type="submit" id="register-visit-submit" disabled={!poliId || register.isPending}>
          {t('clinic.register.submit')}
        </button>
      </form>
      {register.data ? <QueueSlip v={register.data} /> : null}
    </section>
  );
}

interface SlipVisit {
  noAntrean: number;
  noKunjungan: string;
  poliNama: string;
  pasienNama: string;
  noRm: string;
  createdAt: string;
}

function QueueSlip({ v }: { v: SlipVisit }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <div className="queue-slip" id="queue-slip" role="region" aria-label={t('clinic.register.slip')}>
      <p className="slip-clinic">{v.poliNama}</p>
      <p className="slip-label">{t('clinic.queue.number')}</p>
      <p className="slip-number" id="slip-number">
        {v.noAntrean}
      </p>
      <p>
        {v.pasienNama} · <span className="mono">{v.noRm}</span>
      </p>
      <p className="mono">{v.noKunjungan}</p>
      <p>{f.dateTime(v.createdAt)}</p>
      <div className="actions no-print">
        <button type="button" id="print-slip" onClick={() => window.print()}>
          {t('clinic.register.print')}
        </button>
        <Link to="/pendaftaran">{t('clinic.register.toDesk')}</Link>
      </div>
      <Status message={t('clinic.register.done', { number: v.noAntrean, clinic: v.poliNama })} />
    </div>
  );
}
