// A patient's clinical record outside a visit (from the patient page): the banner, vital signs over
// time and the visits with their diagnoses, page by page. Opening it without a treatment relationship
// is where break-the-glass is asked for.
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ClinicalGate } from '../clinic/BreakGlass.tsx';
import { PatientBanner } from '../clinic/PatientBanner.tsx';
import { riwayatPage } from '../lib/clinic.ts';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { cursorPages, useTRPC, useTRPCClient } from '../lib/trpc.ts';
import { Loading, PageTitle, Status } from '../ui/kit.tsx';
import { PatientVitals } from './VisitPage.tsx';
import '../clinic/clinic.css';

export default function ClinicalRecord() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const trpc = useTRPC();
  const patient = useQuery(trpc.pasien.get.queryOptions({ id }));
  return (
    <section>
      <p className="breadcrumb">
        <Link to={`/pasien/${id}`}>{t('clinic.record.back')}</Link>
      </p>
      <PageTitle text={t('clinic.record.title', { name: patient.data?.nama ?? '' })} />
      <ClinicalGate pasienId={id}>
        <PatientBanner pasienId={id} />
        <PatientVitals pasienId={id} />
        <Timeline pasienId={id} />
      </ClinicalGate>
    </section>
  );
}

function Timeline({ pasienId }: { pasienId: string }) {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const client = useTRPCClient();
  const pages = useInfiniteQuery(cursorPages(['klinis.riwayat', pasienId], (cursor) => riwayatPage(client, pasienId, cursor)));
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <section aria-labelledby="timeline-title" id="timeline">
      <h2 id="timeline-title">{t('clinic.record.visits')}</h2>
      {pages.isPending ? <Loading /> : null}
      {pages.isError ? <Status message={errorMessage(t, pages.error)} error /> : null}
      {pages.data && items.length === 0 ? <p>{t('clinic.record.noVisits')}</p> : null}
      <ol className="timeline">
        {items.map((v) => (
          <li key={v.id}>
            <Link to={`/kunjungan/${v.id}`}>
              {f.date(v.tanggal)} · {v.poliNama}
            </Link>{' '}
            <span className={`state state-${v.status}`}>{t(`clinic.status.${v.status as 'planned'}`)}</span>
            {v.diagnosis?.length ? (
              <span className="muted">
                {' '}
                ·{' '}
                {v.diagnosis
                  .map((d) => `${d.kode ?? ''} ${String((i18n.resolvedLanguage === 'en' ? d.isi.display : d.isi.displayId) ?? '')}`)
                  .join(', ')}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
      {pages.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void pages.fetchNextPage()}>
          {t('patients.more')}
        </button>
      ) : null}
    </section>
  );
}
