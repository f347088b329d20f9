// Need-to-know at the door of every clinical page: one clinical query (the patient's allergies, which
// the banner shows anyway) is asked first, and nothing clinical renders until it is answered. When
// records refuses it for want of a treatment relationship, the page says so and asks why the record
// must be opened (at least 10 characters) before it calls btg.open and asks again.
import { useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { isNoRelationship } from '../lib/clinic.ts';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useCan } from '../lib/session.tsx';
import { useTRPC } from '../lib/trpc.ts';
import { Field, Loading, Status } from '../ui/kit.tsx';

export const BTG_MIN_REASON = 10;

export function ClinicalGate({ pasienId, children }: { pasienId: string; children: ReactNode }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const probe = useQuery(trpc.alergi.list.queryOptions({ pasienId }));
  if (probe.isPending) return <Loading />;
  if (probe.isError) {
    if (isNoRelationship(probe.error)) return <BreakGlassForm pasienId={pasienId} />;
    return <Status message={errorMessage(t, probe.error)} error />;
  }
  return children;
}

function BreakGlassForm({ pasienId }: { pasienId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayOpen = useCan('btg.open');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string>();
  const open = useMutation(trpc.btg.open.mutationOptions());

  function submit(e: FormEvent) {
    e.preventDefault();
    if (reason.trim().length < BTG_MIN_REASON) {
      setError(t('clinic.btg.tooShort', { min: BTG_MIN_REASON }));
      return;
    }
    setError(undefined);
    open.mutate(
      { pasienId, reason: reason.trim() },
      {
        // Every refused clinical query of the page asks again, now under the grant.
        onSuccess: () => void queryClient.invalidateQueries(),
        onError: (err) => setError(fieldErrorsOf(t, err).reason ?? errorMessage(t, err)),
      },
    );
  }

  return (
    <section className="break-glass" id="break-glass" aria-labelledby="btg-title">
      <h2 id="btg-title">{t('clinic.btg.title')}</h2>
      <p id="btg-explain">{t('clinic.btg.explain')}</p>
      {mayOpen ? (
        <form onSubmit={submit} noValidate>
          <Field label={t('clinic.btg.reason')} hint={t('clinic.btg.reasonHint', { min: BTG_MIN_REASON })} error={error} required>
            {(a11y) => (
              <textarea {...a11y} name="btg-reason" rows={3} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />
            )}
          </Field>
          <button type="submit" id="btg-open" className="danger" disabled={open.isPending}>
            {t('clinic.btg.open')}
          </button>
        </form>
      ) : null}
    </section>
  );
}
