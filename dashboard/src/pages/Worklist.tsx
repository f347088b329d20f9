// The worklist of nurses and doctors: today's visits of each of their clinics in queue order, with
// state, waiting time and flags (an allergy on record, an abnormal vital sign this visit), asked again
// every WORKLIST_REFRESH_MS. "Call next" starts the first checked-in visit and opens it; a nurse (the
// role that checks patients in, per the matrix) can also check in a planned one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { inferRouterOutputs } from '@trpc/server';
import { allergyState } from '../clinic/PatientBanner.tsx';
import { isAbnormal } from '../clinic/vitals.ts';
import { useMyClinics, waitingMinutes, WORKLIST_REFRESH_MS } from '../lib/clinic.ts';
import { useFormat } from '../lib/format.ts';
import { errorMessage } from '../lib/errors.ts';
import { useCan } from '../lib/session.tsx';
import { useTRPC } from '../lib/trpc.ts';
import type { AppRouter } from '../lib/trpc.ts';
import { Loading, PageTitle, Status } from '../ui/kit.tsx';
import '../clinic/clinic.css';

type Visit = inferRouterOutputs<AppRouter>['kunjungan']['get'];

export default function Worklist() {
  const { t } = useTranslation();
  const mine = useMyClinics();
  return (
    <section>
      <PageTitle text={t('clinic.worklist.title')} />
      <p className="hint">{t('clinic.worklist.hint', { seconds: WORKLIST_REFRESH_MS / 1000 })}</p>
      {mine.isPending ? <Loading /> : null}
      {mine.error ? <Status message={errorMessage(t, mine.error)} error /> : null}
      {!mine.isPending && mine.clinics.length === 0 ? <p id="no-clinics">{t('clinic.worklist.noClinics')}</p> : null}
      {mine.clinics.map((c) => (
        <ClinicQueue key={c.id} poliId={c.id} nama={c.nama} />
      ))}
    </section>
  );
}

function ClinicQueue({ poliId, nama }: { poliId: string; nama: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const list = useQuery({ ...trpc.kunjungan.list.queryOptions({ poliId }), refetchInterval: WORKLIST_REFRESH_MS });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.kunjungan.list.pathKey() });
  const start = useMutation(trpc.kunjungan.start.mutationOptions({ onSuccess: (v) => (refresh(), navigate(`/kunjungan/${v.id}`)) }));
  const arrive = useMutation(trpc.kunjungan.arrive.mutationOptions({ onSuccess: refresh }));
  const canStart = useCan('kunjungan.start');
  const canArrive = useCan('kunjungan.arrive');
  const visits = list.data ?? [];
  const next = visits.find((v) => v.status === 'arrived');
  const headingId = `queue-${poliId}`;
  return (
    <section aria-labelledby={headingId} className="queue" data-poli={poliId}>
      <div className="page-head">
        <h2 id={headingId}>{nama}</h2>
        {canStart ? (
          <button
            type="button"
            className="call-next"
            disabled={!next || start.isPending}
            onClick={() => next && start.mutate({ id: next.id, expectedVersion: next.version })}
          >
            {next ? t('clinic.worklist.callNext', { number: next.noAntrean }) : t('clinic.worklist.nobodyWaiting')}
          </button>
        ) : null}
      </div>
      <Status message={start.isError ? errorMessage(t, start.error) : arrive.isError ? errorMessage(t, arrive.error) : undefined} error />
      {list.isPending ? <Loading /> : null}
      {list.isError ? <Status message={errorMessage(t, list.error)} error /> : null}
      {list.data && visits.length === 0 ? <p>{t('clinic.worklist.empty')}</p> : null}
      {visits.length > 0 ? (
        <ol className="worklist">
          {visits.map((v) => (
            <WorklistRow
              key={v.id}
              v={v}
              onArrive={canArrive ? () => arrive.mutate({ id: v.id, expectedVersion: v.version }) : undefined}
            />
          ))}
        </ol>
      ) : null}
    </section>
  );
}

function WorklistRow({ v, onArrive }: { v: Visit; onArrive: (() => void) | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const active = v.status !== 'cancelled' && v.status !== 'finished';
  // Waiting until the visit starts; from then on, since when the patient is being seen.
  const waiting =
    v.status === 'in-progress'
      ? t('clinic.worklist.seenSince', { time: f.time(v.startedAt) })
      : t('clinic.worklist.waiting', { count: waitingMinutes(v), minutes: waitingMinutes(v) });
  return (
    <li className={`worklist-row state-${v.status}`} data-visit={v.id} data-status={v.status}>
      <span className="queue-no">
        <span className="visually-hidden">{t('clinic.queue.number')} </span>
        {v.noAntrean}
      </span>
      <span className="row-who">
        <Link to={`/kunjungan/${v.id}`} className="patient-link">
          {v.pasienNama}
        </Link>
        <span className="muted mono"> {v.noRm}</span>
      </span>
      <span className={`state state-${v.status}`}>{t(`clinic.status.${v.status}`)}</span>
      <span className="waiting">{active ? waiting : ''}</span>
      {active ? <Flags v={v} /> : <span />}
      {onArrive && v.status === 'planned' ? (
        <button type="button" className="secondary arrive" onClick={onArrive}>
          {t('clinic.visit.arrive')}
        </button>
      ) : null}
    </li>
  );
}

/** Allergy and abnormal-vital flags of a waiting or ongoing visit, in words as well as a sign. */
function Flags({ v }: { v: Visit }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const poll = { refetchInterval: WORKLIST_REFRESH_MS * 3, retry: false } as const;
  const allergies = useQuery({ ...trpc.alergi.list.queryOptions({ pasienId: v.pasienId }), ...poll });
  const vitals = useQuery({ ...trpc.vital.list.queryOptions({ kunjunganId: v.id }), ...poll });
  const allergy = allergyState(allergies.data) === 'some';
  const abnormal = vitals.data?.some((e) => isAbnormal(e.flag)) ?? false;
  return (
    <span className="flags">
      {allergy ? (
        <span className="flag-chip allergy" data-flag="allergy">
          ⚠ {t('clinic.worklist.flagAllergy')}
        </span>
      ) : null}
      {abnormal ? (
        <span className="flag-chip abnormal" data-flag="abnormal">
          ↕ {t('clinic.worklist.flagAbnormal')}
        </span>
      ) : null}
    </span>
  );
}
