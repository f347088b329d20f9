// Patients: one search box for a name, a NIK (16 digits) or a medical-record number (up to 8 digits),
// keyset pages from records ("show more" passes nextCursor back), the filters kept in the address.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useCan } from '../lib/session.tsx';
import { cursorPages, useTRPC, useTRPCClient } from '../lib/trpc.ts';
import { PageTitle, Status } from '../ui/kit.tsx';
import type { Pasien } from './patientFields.ts';

type Status = 'active' | 'archived' | 'all';
const STATUSES: Status[] = ['active', 'archived', 'all'];

/** What the search text means: a NIK, a medical-record number, a name, or nothing usable. */
export function classify(text: string): { nik: string } | { noRm: string } | { q: string } | { invalid: true } | Record<string, never> {
  const s = text.trim().replace(/\s+/g, ' ');
  if (!s) return {};
  const digits = s.replace(/[\s.-]/g, '');
  if (/^\d+$/.test(digits)) {
    if (digits.length === 16) return { nik: digits };
    if (digits.length <= 8) return { noRm: digits };
    return { invalid: true };
  }
  return /\p{L}/u.test(s) && /^[\p{L}\p{M} .,'-]+$/u.test(s) ? { q: s } : { invalid: true };
}

export function PatientList() {
  const { t } = useTranslation();
  const f = useFormat();
  const trpc = useTRPC();
  const canCreate = useCan('pasien.create');
  const [params] = useSearchParams();
  const text = params.get('cari') ?? '';
  const status = (STATUSES as string[]).includes(params.get('status') ?? '') ? (params.get('status') as Status) : 'active';
  const filter = classify(text);
  const invalid = 'invalid' in filter;

  const client = useTRPCClient();
  const input = { ...(invalid ? {} : filter), status, limit: 20 };
  const query = useInfiniteQuery({
    ...cursorPages(trpc.pasien.list.queryKey(input), (cursor) => client.pasien.list.query({ ...input, cursor })),
    enabled: !invalid,
  });
  const items = query.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section>
      <div className="page-head">
        <PageTitle text={t('patients.title')} />
        {canCreate ? (
          <Link className="button" to="/pasien/baru" id="register-patient">
            {t('patients.register')}
          </Link>
        ) : null}
      </div>
      <SearchForm text={text} status={status} invalid={invalid} />
      {invalid ? <Status message={t('patients.searchInvalid')} error /> : null}
      {query.isError ? <Status message={errorMessage(t, query.error)} error /> : null}
      <p className="result-count" role="status" aria-live="polite" id="result-count">
        {query.isPending && !invalid
          ? t('common.loading')
          : query.isSuccess
            ? items.length === 0
              ? t('patients.none')
              : t('patients.shown', { count: items.length, n: f.number(items.length) })
            : ''}
      </p>
      {items.length > 0 ? <PatientTable items={items} /> : null}
      {query.hasNextPage ? (
        <button
          id="load-more"
          type="button"
          className="secondary"
          onClick={() => void query.fetchNextPage()}
          disabled={query.isFetchingNextPage}
        >
          {query.isFetchingNextPage ? t('common.loading') : t('patients.more')}
        </button>
      ) : null}
    </section>
  );
}

/** The search box and the status choice; a search is applied to the address when submitted, a status at once. */
function SearchForm({ text, status, invalid }: { text: string; status: Status; invalid: boolean }) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [draft, setDraft] = useState(text);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (draft.trim()) next.set('cari', draft.trim());
    if (status !== 'active') next.set('status', status);
    setParams(next);
  };

  return (
    <form className="search" role="search" onSubmit={submit} aria-label={t('patients.searchLabel')}>
      <div className="field grow">
        <label htmlFor="patient-search">{t('patients.searchLabel')}</label>
        <input
          id="patient-search"
          type="search"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          aria-describedby="patient-search-hint"
          aria-invalid={invalid}
          autoComplete="off"
        />
        <small id="patient-search-hint" className="hint">
          {t('patients.searchHint')}
        </small>
      </div>
      <div className="field">
        <label htmlFor="patient-status">{t('patients.status')}</label>
        <select
          id="patient-status"
          value={status}
          onChange={(e) => {
            const next = new URLSearchParams(params);
            if (e.target.value === 'active') next.delete('status');
            else next.set('status', e.target.value);
            setParams(next);
          }}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`patients.statuses.${s}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <button id="search" type="submit">
          {t('patients.search')}
        </button>
      </div>
    </form>
  );
}

function PatientTable({ items }: { items: Pasien[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  return (
    <table className="responsive" id="patient-table">
      <caption className="visually-hidden">{t('patients.title')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('patient.noRm')}</th>
          <th scope="col">{t('patient.nama')}</th>
          <th scope="col">{t('patient.nik')}</th>
          <th scope="col">{t('patient.tanggalLahir')}</th>
          <th scope="col">{t('patient.jenisKelamin')}</th>
          <th scope="col">{t('patient.kotaKabupaten')}</th>
        </tr>
      </thead>
      <tbody>
        {items.map((p) => (
          <tr key={p.id} data-pasien-id={p.id}>
            <td data-label={t('patient.noRm')} className="mono">
              {p.noRm}
            </td>
            <td data-label={t('patient.nama')}>
              <Link to={`/pasien/${p.id}`} className="patient-link">
                {p.nama}
              </Link>
              {p.status === 'archived' ? <span className="badge">{t('patient.archived')}</span> : null}
            </td>
            <td data-label={t('patient.nik')} className="mono">
              {p.nik}
            </td>
            <td data-label={t('patient.tanggalLahir')}>{f.date(p.tanggalLahir)}</td>
            <td data-label={t('patient.jenisKelamin')}>{t(`patient.sex.${p.jenisKelamin}`)}</td>
            <td data-label={t('patient.kotaKabupaten')}>{p.kotaKabupaten}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
