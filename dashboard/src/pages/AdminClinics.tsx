// Clinics for the hospital's administrator: add, rename, deactivate and reactivate; the clinicians of
// each clinic, assigned and unassigned by user id (names from identity where known); and the access
// settings: the treatment-relationship window and how long a break-the-glass grant lasts.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { identity } from '../lib/auth.ts';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { Loading, PageTitle, Status, TextField } from '../ui/kit.tsx';
import { AccessSettings } from './AdminSettings.tsx';
import '../clinic/clinic.css';

interface Poli {
  id: string;
  kode: string;
  nama: string;
  active: boolean;
  version: number;
}

export default function AdminClinics() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const clinics = useQuery(trpc.poli.list.queryOptions({ includeInactive: true }));
  return (
    <section>
      <PageTitle text={t('clinic.admin.title')} />
      <AddClinic />
      {clinics.isPending ? <Loading /> : null}
      {clinics.isError ? <Status message={errorMessage(t, clinics.error)} error /> : null}
      <ul className="clinic-list" id="clinic-list">
        {clinics.data?.map((c) => (
          <ClinicItem key={`${c.id}:${c.version}`} poli={c} />
        ))}
      </ul>
      <AccessSettings />
    </section>
  );
}

function useInvalidateClinics() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => void queryClient.invalidateQueries({ queryKey: trpc.poli.pathKey() });
}

function AddClinic() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const invalidate = useInvalidateClinics();
  const [kode, setKode] = useState('');
  const [nama, setNama] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation(trpc.poli.create.mutationOptions());
  function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    create.mutate(
      { kode: kode.trim().toUpperCase(), nama: nama.trim() },
      {
        onSuccess: () => (setKode(''), setNama(''), invalidate()),
        onError: (err) => setErrors({ _form: errorMessage(t, err), ...fieldErrorsOf(t, err) }),
      },
    );
  }
  return (
    <form onSubmit={submit} noValidate className="inline-form" id="add-clinic" aria-labelledby="add-clinic-title">
      <h2 id="add-clinic-title">{t('clinic.admin.add')}</h2>
      <TextField
        name="clinic-kode"
        label={t('clinic.admin.kode')}
        hint={t('clinic.admin.kodeHint')}
        value={kode}
        error={errors.kode}
        onValue={setKode}
        required
        maxLength={12}
      />
      <TextField
        name="clinic-nama"
        label={t('clinic.admin.nama')}
        value={nama}
        error={errors.nama}
        onValue={setNama}
        required
        maxLength={100}
      />
      <button type="submit" id="add-clinic-submit" disabled={create.isPending}>
        {t('clinic.admin.addSubmit')}
      </button>
      <Status message={create.isError && !errors.kode && !errors.nama ? errors._form : undefined} error />
    </form>
  );
}

function ClinicItem({ poli }: { poli: Poli }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const invalidate = useInvalidateClinics();
  const [nama, setNama] = useState(poli.nama);
  const update = useMutation(trpc.poli.update.mutationOptions({ onSuccess: invalidate }));
  const change = (fields: { nama?: string; active?: boolean }) => update.mutate({ id: poli.id, expectedVersion: poli.version, ...fields });
  return (
    <li className={poli.active ? 'clinic' : 'clinic inactive'} data-kode={poli.kode}>
      <h3>
        <span className="mono">{poli.kode}</span> {poli.nama}{' '}
        {poli.active ? null : <span className="badge">{t('clinic.admin.inactive')}</span>}
      </h3>
      <form onSubmit={(e) => (e.preventDefault(), change({ nama: nama.trim() }))} noValidate className="inline-form">
        <TextField name={`rename-${poli.kode}`} label={t('clinic.admin.rename')} value={nama} onValue={setNama} maxLength={100} />
        <button type="submit" className="secondary" disabled={update.isPending || nama.trim() === poli.nama}>
          {t('clinic.admin.renameSubmit')}
        </button>
        <button
          type="button"
          className={poli.active ? 'danger' : 'secondary'}
          onClick={() => change({ active: !poli.active })}
          disabled={update.isPending}
        >
          {poli.active ? t('clinic.admin.deactivate') : t('clinic.admin.reactivate')}
        </button>
      </form>
      <Status message={update.isError ? errorMessage(t, update.error) : undefined} error />
      <ClinicStaff poli={poli} />
    </li>
  );
}

function ClinicStaff({ poli }: { poli: Poli }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const invalidate = useInvalidateClinics();
  const staff = useQuery(trpc.poli.staff.queryOptions({ poliId: poli.id }));
  const names = useQuery({ queryKey: ['identity', 'names'], queryFn: identity.names, staleTime: 60_000 });
  const nameOf = new Map(names.data?.users.map((u) => [u.id, u.name]));
  const [userId, setUserId] = useState('');
  const [error, setError] = useState<string>();
  const onError = (err: unknown) => setError(fieldErrorsOf(t, err).userId ?? errorMessage(t, err));
  const assign = useMutation(
    trpc.poli.assign.mutationOptions({ onSuccess: () => (setUserId(''), setError(undefined), invalidate()), onError }),
  );
  const unassign = useMutation(trpc.poli.unassign.mutationOptions({ onSuccess: invalidate, onError }));
  return (
    <div className="clinic-staff">
      <h4>{t('clinic.admin.staff')}</h4>
      {staff.data?.length === 0 ? <p>{t('clinic.admin.noStaff')}</p> : null}
      <ul>
        {staff.data?.map((s) => (
          <li key={s.userId} data-user={s.userId}>
            {nameOf.get(s.userId) ?? s.userId} <span className="muted mono">{s.userId}</span>{' '}
            <button type="button" className="link" onClick={() => unassign.mutate({ poliId: poli.id, userId: s.userId })}>
              {t('clinic.admin.unassign')}
            </button>
          </li>
        ))}
      </ul>
      <form
        onSubmit={(e) => (e.preventDefault(), assign.mutate({ poliId: poli.id, userId: userId.trim() }))}
        noValidate
        className="inline-form"
      >
        <TextField
          name={`assign-${poli.kode}`}
          label={t('clinic.admin.userId')}
          value={userId}
          error={error}
          onValue={setUserId}
          maxLength={200}
          autoComplete="off"
        />
        <button type="submit" className="secondary" disabled={!userId.trim() || assign.isPending}>
          {t('clinic.admin.assign')}
        </button>
      </form>
    </div>
  );
}
