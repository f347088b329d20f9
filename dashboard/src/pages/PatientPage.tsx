// One patient: the record, what the role may do with it (correct, archive after a confirmation that
// asks for the reason), and who read or changed it, for roles allowed to see the audit trail.
import { useState } from 'react';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { identity } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { ageOn, useFormat } from '../lib/format.ts';
import { useCan } from '../lib/session.tsx';
import { cursorPages, useTRPC, useTRPCClient } from '../lib/trpc.ts';
import { AuditTable } from '../ui/AuditTable.tsx';
import { RegisterVisit } from '../ui/RegisterVisit.tsx';
import { ConfirmDialog, Loading, PageTitle, Status } from '../ui/kit.tsx';
import { FIELD_NAMES } from './patientFields.ts';
import type { Pasien } from './patientFields.ts';

export default function PatientPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const trpc = useTRPC();
  const query = useQuery(trpc.pasien.get.queryOptions({ id }));
  const notice = (useLocation().state as { notice?: string } | null)?.notice;
  if (query.isPending) return <Loading />;
  if (query.isError) return <Status message={errorMessage(t, query.error)} error />;
  return <Patient p={query.data} notice={notice} />;
}

function Patient({ p, notice }: { p: Pasien; notice: string | undefined }) {
  const { t } = useTranslation();
  const f = useFormat();
  const canEdit = useCan('pasien.update') && p.status === 'active';
  const canArchive = useCan('pasien.archive') && p.status === 'active';
  const canAudit = useCan('audit.read');
  const canRegisterVisit = useCan('kunjungan.register') && p.status === 'active';
  const canClinical = useCan('clinical.read');
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState(notice);

  return (
    <section>
      <p className="breadcrumb">
        <Link to="/pasien">{t('patients.back')}</Link>
      </p>
      <div className="page-head">
        <PageTitle text={p.nama} />
        <div className="actions">
          {canEdit ? (
            <Link className="button" id="edit-patient" to={`/pasien/${p.id}/ubah`}>
              {t('patient.edit')}
            </Link>
          ) : null}
          {canClinical ? (
            <Link className="button" id="clinical-record" to={`/pasien/${p.id}/klinis`}>
              {t('clinic.record.open')}
            </Link>
          ) : null}
          {canArchive ? (
            <button type="button" id="archive-patient" className="danger" onClick={() => setConfirming(true)}>
              {t('patient.archive')}
            </button>
          ) : null}
        </div>
      </div>
      <p className="meta">
        {t('patient.noRm')}{' '}
        <strong className="mono" id="patient-norm">
          {p.noRm}
        </strong>
        {p.status === 'archived' ? (
          <span className="badge" id="archived-badge">
            {t('patient.archived')}
          </span>
        ) : null}
      </p>
      <Status message={message} id="patient-status" />
      {p.status === 'archived' ? (
        <p className="notice">{t('patient.archivedOn', { when: f.dateTime(p.archivedAt), reason: p.archiveReason ?? '—' })}</p>
      ) : null}
      {canRegisterVisit ? <RegisterVisit pasienId={p.id} /> : null}
      <PatientRecord p={p} />
      {canAudit ? <AccessHistory pasienId={p.id} /> : null}
      <ArchiveDialog
        p={p}
        open={confirming}
        onCancel={() => setConfirming(false)}
        onArchived={() => (setConfirming(false), setMessage(t('patient.archivedNotice')))}
      />
    </section>
  );
}

/** The record's fields, each in the reader's terms (a date with the age, the sex in words). */
function PatientRecord({ p }: { p: Pasien }) {
  const { t } = useTranslation();
  const f = useFormat();
  const shown = FIELD_NAMES.filter((n) => n !== 'nama');
  const value = (n: (typeof FIELD_NAMES)[number]) => {
    const v = p[n];
    if (!v) return '—';
    if (n === 'tanggalLahir') return `${f.date(v)} (${t('patient.age', { age: ageOn(v) })})`;
    if (n === 'jenisKelamin') return t(`patient.sex.${v as 'L'}`);
    return v;
  };

  return (
    <dl className="record" id="patient-record">
      {shown.map((n) => (
        <div key={n} className="record-item">
          <dt>{t(`patient.${n}`)}</dt>
          <dd data-field={n}>{value(n)}</dd>
        </div>
      ))}
      <div className="record-item">
        <dt>{t('patient.updatedAt')}</dt>
        <dd>{f.dateTime(p.updatedAt)}</dd>
      </div>
    </dl>
  );
}

/** Archiving after a confirmation that asks for the reason. */
function ArchiveDialog({ p, open, onCancel, onArchived }: { p: Pasien; open: boolean; onCancel: () => void; onArchived: () => void }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState('');
  const archive = useMutation(trpc.pasien.archive.mutationOptions());
  const doArchive = () =>
    archive.mutate(
      { id: p.id, reason: reason.trim() },
      {
        onSuccess: (updated) => {
          queryClient.setQueryData(trpc.pasien.get.queryKey({ id: p.id }), updated);
          void queryClient.invalidateQueries({ queryKey: trpc.pasien.list.pathKey() });
          onArchived();
        },
      },
    );
  return (
    <ConfirmDialog
      open={open}
      title={t('patient.archiveTitle', { name: p.nama })}
      confirmLabel={t('patient.archive')}
      danger
      busy={archive.isPending}
      ready={reason.trim().length > 0}
      onConfirm={doArchive}
      onCancel={() => (onCancel(), archive.reset())}
    >
      <p>{t('patient.archiveText', { noRm: p.noRm })}</p>
      <label htmlFor="archive-reason">
        {t('patient.archiveReason')} <span className="required">({t('common.required')})</span>
      </label>
      <input id="archive-reason" value={reason} onChange={(e) => setReason(e.target.value)} maxLength={200} required />
      <Status message={archive.isError ? errorMessage(t, archive.error) : undefined} error />
    </ConfirmDialog>
  );
}

function AccessHistory({ pasienId }: { pasienId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const users = useQuery({ queryKey: ['identity', 'names'], queryFn: identity.names, enabled: useCan('audit.read') });
  const names = new Map(users.data?.users.map((u) => [u.id, u.name]));
  const client = useTRPCClient();
  const input = { pasienId, limit: 20 };
  const history = useInfiniteQuery(cursorPages(trpc.audit.list.queryKey(input), (cursor) => client.audit.list.query({ ...input, cursor })));
  const items = history.data?.pages.flatMap((pg) => pg.items) ?? [];
  return (
    <section aria-labelledby="history-title" id="access-history">
      <h2 id="history-title">{t('patient.history')}</h2>
      <p className="hint">{t('patient.historyHint')}</p>
      {history.isPending ? <Loading /> : null}
      {history.isError ? <Status message={errorMessage(t, history.error)} error /> : null}
      {items.length > 0 ? <AuditTable items={items} names={names} caption={t('patient.history')} showPatients={false} /> : null}
      {history.hasNextPage ? (
        <button type="button" className="secondary" onClick={() => void history.fetchNextPage()}>
          {t('patients.more')}
        </button>
      ) : null}
    </section>
  );
}
