// One visit, for the nurse and the doctor: the patient's banner (identity and allergies), the visit's
// state and its next step, vital signs (form, this visit's values, the patient's chart over time),
// diagnoses, the SOAP note, allergies, and finishing, whose refusal shows the API's reason. Each part
// shows only for roles whose permissions allow it; nothing clinical renders before need-to-know passes.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AllergyForm } from '../clinic/AllergyForm.tsx';
import { ClinicalGate } from '../clinic/BreakGlass.tsx';
import { DiagnosisList, DiagnosisPicker } from '../clinic/DiagnosisPicker.tsx';
import { PatientBanner } from '../clinic/PatientBanner.tsx';
import { SoapNote } from '../clinic/SoapNote.tsx';
import { VitalsChart } from '../clinic/VitalsChart.tsx';
import { SyncState } from '../clinic/SyncState.tsx';
import { VitalsForm } from '../clinic/VitalsForm.tsx';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useCan } from '../lib/session.tsx';
import { useTRPC } from '../lib/trpc.ts';
import { Loading, PageTitle, Status } from '../ui/kit.tsx';
import '../clinic/clinic.css';

export default function VisitPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const trpc = useTRPC();
  const visit = useQuery(trpc.kunjungan.get.queryOptions({ id }));
  const canSeeSync = useCan('satusehat.status');
  if (visit.isPending) return <Loading />;
  if (visit.isError) return <Status message={errorMessage(t, visit.error)} error />;
  const v = visit.data;
  return (
    <section className="visit-page">
      <p className="breadcrumb">
        <Link to="/antrean">{t('clinic.worklist.back')}</Link>
      </p>
      <PageTitle text={t('clinic.visit.title', { name: v.pasienNama })} />
      <p className="meta">
        <span className="mono">{v.noKunjungan}</span> · {v.poliNama} · {t('clinic.queue.number')} <strong>{v.noAntrean}</strong> ·{' '}
        <span className={`state state-${v.status}`} id="visit-state" data-status={v.status}>
          {t(`clinic.status.${v.status}`)}
        </span>
        {canSeeSync && v.status === 'finished' ? (
          <>
            {' · '}
            <SyncState kunjunganId={v.id} />
          </>
        ) : null}
      </p>
      <ClinicalGate pasienId={v.pasienId}>
        <PatientBanner pasienId={v.pasienId} />
        <VisitSteps visit={v} />
        <VisitClinical visit={v} />
      </ClinicalGate>
    </section>
  );
}

interface Visit {
  id: string;
  pasienId: string;
  status: string;
  version: number;
}

/** The visit's next step for this role: check in, start, or finish (the API's reason when refused). */
function VisitSteps({ visit }: { visit: Visit }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [message, setMessage] = useState<string>();
  const opts = {
    onSuccess: (updated: unknown) => {
      queryClient.setQueryData(trpc.kunjungan.get.queryKey({ id: visit.id }), updated as never);
      void queryClient.invalidateQueries({ queryKey: trpc.kunjungan.list.pathKey() });
      setMessage(undefined);
    },
    onError: (err: unknown) => setMessage(errorMessage(t, err)),
  };
  const arrive = useMutation(trpc.kunjungan.arrive.mutationOptions(opts));
  const start = useMutation(trpc.kunjungan.start.mutationOptions(opts));
  const finish = useMutation(trpc.kunjungan.finish.mutationOptions(opts));
  const input = { id: visit.id, expectedVersion: visit.version };
  const steps = [
    useCan('kunjungan.arrive') &&
      visit.status === 'planned' && { id: 'arrive-visit', label: t('clinic.visit.arrive'), run: () => arrive.mutate(input) },
    useCan('kunjungan.start') &&
      visit.status === 'arrived' && { id: 'start-visit', label: t('clinic.visit.start'), run: () => start.mutate(input) },
    useCan('kunjungan.finish') &&
      visit.status === 'in-progress' && { id: 'finish-visit', label: t('clinic.visit.finish'), run: () => finish.mutate(input) },
  ].filter((s): s is { id: string; label: string; run: () => void } => Boolean(s));
  if (steps.length === 0 && !message) return null;
  return (
    <div className="visit-steps">
      <div className="actions">
        {steps.map((s) => (
          <button key={s.id} id={s.id} type="button" onClick={s.run} disabled={arrive.isPending || start.isPending || finish.isPending}>
            {s.label}
          </button>
        ))}
      </div>
      <Status message={message} error id="visit-step-status" />
    </div>
  );
}

function VisitClinical({ visit }: { visit: Visit }) {
  const { t } = useTranslation();
  const open = visit.status === 'arrived' || visit.status === 'in-progress';
  // A finished visit takes vital signs as a late entry, with when they were measured and why.
  const canVitals = useCan('vital.record') && (open || visit.status === 'finished');
  const canDiagnose = useCan('diagnosis.record') && visit.status === 'in-progress';
  const canReadDiagnosis = useCan('diagnosis.read');
  const canAllergy = useCan('alergi.record') && visit.status !== 'cancelled';
  return (
    <div className="visit-clinical">
      {canVitals ? <VitalsForm kunjunganId={visit.id} pasienId={visit.pasienId} finished={visit.status === 'finished'} /> : null}
      <PatientVitals pasienId={visit.pasienId} />
      {canReadDiagnosis ? (
        <section aria-labelledby="diagnosis-title" id="diagnoses">
          <h2 id="diagnosis-title">{t('clinic.diagnosis.title')}</h2>
          <DiagnosisList kunjunganId={visit.id} />
          {canDiagnose ? <DiagnosisPicker kunjunganId={visit.id} /> : null}
        </section>
      ) : null}
      {useCan('catatan.read') ? <SoapNote kunjunganId={visit.id} /> : null}
      {canAllergy ? <AllergyForm pasienId={visit.pasienId} kunjunganId={visit.id} /> : null}
    </div>
  );
}

/** The patient's vital signs over time, across visits. */
export function PatientVitals({ pasienId }: { pasienId: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const trpc = useTRPC();
  const list = useQuery(trpc.vital.list.queryOptions({ pasienId, limit: 200 }));
  // The banner's query (one request for both): the birth date decides a child's reference ranges.
  const patient = useQuery(trpc.pasien.get.queryOptions({ id: pasienId }));
  return (
    <section aria-labelledby="chart-title" id="vitals-over-time">
      <h2 id="chart-title">{t('clinic.chart.heading')}</h2>
      {list.isPending ? <Loading /> : null}
      {list.isError ? <Status message={errorMessage(t, list.error)} error /> : null}
      {list.data ? <VitalsChart entries={list.data} birthDate={patient.data?.tanggalLahir} /> : null}
      {list.data?.length ? <p className="hint">{t('clinic.chart.since', { when: f.dateTime(list.data.at(-1)!.waktu) })}</p> : null}
    </section>
  );
}
