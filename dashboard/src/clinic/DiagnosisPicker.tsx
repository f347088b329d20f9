// Diagnoses of a visit: find an ICD-10 code by code or by its Indonesian or English name (kode.search),
// or type the code itself (always possible, and the only way while the API has no code search), then
// record it as primary or secondary. The API checks the code against its code list.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useCodeSearch } from '../lib/clinic.ts';
import type { CodeHit } from '../lib/clinic.ts';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { SelectField, Status, TextField } from '../ui/kit.tsx';

export function DiagnosisList({ kunjunganId }: { kunjunganId: string }) {
  const { t, i18n } = useTranslation();
  const trpc = useTRPC();
  const list = useQuery(trpc.diagnosis.list.queryOptions({ kunjunganId }));
  if (!list.data?.length) return <p id="no-diagnosis">{t('clinic.diagnosis.none')}</p>;
  return (
    <ul className="entries" id="diagnosis-list">
      {list.data.map((d) => (
        <li key={d.id} data-code={d.kode ?? ''} data-rank={d.peran ?? ''}>
          <strong className="mono">{d.kode}</strong> {String((i18n.resolvedLanguage === 'en' ? d.isi.display : d.isi.displayId) ?? '')}
          <span className="badge">{t(`clinic.diagnosis.rank.${(d.peran ?? 'secondary') as 'primary'}`)}</span>
        </li>
      ))}
    </ul>
  );
}

export function DiagnosisPicker({ kunjunganId }: { kunjunganId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const existing = useQuery(trpc.diagnosis.list.queryOptions({ kunjunganId }));
  const hasPrimary = existing.data?.some((d) => d.peran === 'primary') ?? false;
  const [q, setQ] = useState('');
  const [code, setCode] = useState('');
  const [rank, setRank] = useState<'primary' | 'secondary' | ''>('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();
  const search = useCodeSearch(q, true);
  const record = useMutation(trpc.diagnosis.record.mutationOptions());
  const chosenRank = rank || (hasPrimary ? 'secondary' : 'primary');

  function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setMessage(undefined);
    record.mutate(
      { kunjunganId, code: code.trim().toUpperCase(), rank: chosenRank, clinicalStatus: 'active' },
      {
        onSuccess: (d) => {
          setCode('');
          setQ('');
          setRank('');
          setMessage(t('clinic.diagnosis.saved', { code: d.kode }));
          void queryClient.invalidateQueries({ queryKey: trpc.diagnosis.list.pathKey() });
        },
        onError: (err) => {
          const fe = fieldErrorsOf(t, err);
          setErrors(fe);
          if (!fe.code) setMessage(fe._input ?? errorMessage(t, err));
        },
      },
    );
  }

  const unavailable = search.data?.available === false;
  return (
    <form onSubmit={submit} noValidate id="diagnosis-form" className="diagnosis-form">
      <TextField
        name="diagnosis-search"
        type="search"
        label={t('clinic.diagnosis.search')}
        hint={unavailable ? t('clinic.diagnosis.searchUnavailable') : t('clinic.diagnosis.searchHint')}
        value={q}
        onValue={setQ}
        autoComplete="off"
      />
      <CodeHits hits={search.data?.hits ?? []} onPick={(c) => (setCode(c), setQ(''))} />
      <div className="form-grid">
        <TextField
          name="diagnosis-code"
          label={t('clinic.diagnosis.code')}
          hint={t('clinic.diagnosis.codeHint')}
          value={code}
          error={errors.code}
          onValue={setCode}
          required
          autoComplete="off"
          maxLength={10}
        />
        <SelectField
          name="diagnosis-rank"
          label={t('clinic.diagnosis.rankLabel')}
          value={chosenRank}
          error={errors.rank}
          options={(['primary', 'secondary'] as const).map((r) => ({ value: r, label: t(`clinic.diagnosis.rank.${r}`) }))}
          onValue={(v) => setRank(v as 'primary' | 'secondary')}
        />
      </div>
      <button type="submit" id="save-diagnosis" disabled={record.isPending || code.trim() === ''}>
        {t('clinic.diagnosis.save')}
      </button>
      <Status message={message} error={record.isError} id="diagnosis-status" />
    </form>
  );
}

function CodeHits({ hits, onPick }: { hits: CodeHit[]; onPick: (code: string) => void }) {
  const { t, i18n } = useTranslation();
  const en = i18n.resolvedLanguage === 'en';
  if (hits.length === 0) return null;
  return (
    <ul className="code-hits" id="code-hits" aria-label={t('clinic.diagnosis.hits')}>
      {hits.map((h) => (
        <li key={h.code}>
          <button type="button" className="link" data-code={h.code} onClick={() => onPick(h.code)}>
            <span className="mono">{h.code}</span> {en ? h.displayEn : h.displayId}
            {en ? null : <span className="muted"> · {h.displayEn}</span>}
          </button>
        </li>
      ))}
    </ul>
  );
}
