// Recording a visit's vital signs: one field per sign with its unit beside the label, typed and sent
// with Enter, an out-of-range value marked while typing (in words, not colour alone), when they were
// measured if not just now, and the API's message for a field shown next to that field. In a finished
// visit they are a late entry: when they were measured and why they are added now are required. Below,
// what this visit has recorded, with its flags.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ageInYears, flagOf, VITAL_SIGNS, vitalByKey } from '@simrs/records/vital-signs';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useTRPC } from '../lib/trpc.ts';
import { FieldError, Status, TextField } from '../ui/kit.tsx';
import { describeVital } from './vitals.ts';

const parse = (raw: string) => Number(raw.trim().replace(',', '.'));

/** A moment as a datetime-local input holds it: the device's local time, to the minute. */
const localMinute = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** L, H, LL or HH for a typed value outside the sign's reference range; nothing for normal or unparsed. */
/** The flag a typed value will get for a patient of `ageYears` (unknown: the adult ranges), or none when normal. */
export function typedFlag(key: string, raw: string, ageYears?: number): string | undefined {
  const sign = vitalByKey(key);
  if (!sign || raw.trim() === '' || !Number.isFinite(parse(raw))) return undefined;
  const flag = flagOf(sign, parse(raw), ageYears);
  return flag === 'N' ? undefined : flag;
}

export function VitalsForm({ kunjunganId, pasienId, finished }: { kunjunganId: string; pasienId: string; finished: boolean }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  // The banner's query: the patient's age decides which values are marked while typing.
  const birthDate = useQuery(trpc.pasien.get.queryOptions({ id: pasienId })).data?.tanggalLahir;
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Record<string, string>>({});
  // Empty: measured just now. A datetime-local value is the device's local time.
  const [measuredAt, setMeasuredAt] = useState('');
  const [reason, setReason] = useState('');
  const waktu = measuredAt ? new Date(measuredAt).toISOString() : undefined;
  const ageYears = birthDate ? ageInYears(birthDate, waktu) : undefined;
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();
  const record = useMutation(trpc.vital.record.mutationOptions());

  function submit(e: FormEvent) {
    e.preventDefault();
    const keys = VITAL_SIGNS.map((v) => v.key).filter((k) => (values[k] ?? '').trim() !== '');
    const measurements = keys.map((key) => ({ key, value: parse(values[key]!), unit: vitalByKey(key)!.unit }));
    setErrors({});
    setMessage(undefined);
    record.mutate(
      { kunjunganId, measurements, ...(waktu ? { waktu } : {}), ...(finished ? { reason: reason.trim() } : {}) },
      {
        onSuccess: () => {
          setValues({});
          setMeasuredAt('');
          setReason('');
          setMessage(t('clinic.vitals.saved'));
          void queryClient.invalidateQueries({ queryKey: trpc.vital.list.pathKey() });
        },
        onError: (err) => {
          // The API names fields by their place in what was sent: measurements.<i>.value.
          const fields = fieldErrorsOf(t, err);
          const mapped: Record<string, string> = {};
          for (const [field, msg] of Object.entries(fields)) {
            const m = /^measurements\.(\d+)\.\w+$/.exec(field);
            mapped[m ? keys[Number(m[1])]! : field === 'waktu' || field === 'reason' ? field : '_form'] = msg;
          }
          setErrors(mapped);
          if (mapped._form || Object.keys(mapped).length === 0) setMessage(mapped._form ?? errorMessage(t, err));
        },
      },
    );
  }

  return (
    <section aria-labelledby="vitals-title" id="vitals">
      <h2 id="vitals-title">{t('clinic.vitals.title')}</h2>
      <form onSubmit={submit} noValidate className="vitals-form">
        <div className="vitals-grid">
          {VITAL_SIGNS.map((v) => (
            <VitalInput
              key={v.key}
              name={v.key}
              value={values[v.key] ?? ''}
              error={errors[v.key]}
              ageYears={ageYears}
              onValue={(val) => setValues((s) => ({ ...s, [v.key]: val }))}
            />
          ))}
        </div>
        <WhenAndWhy
          finished={finished}
          measuredAt={measuredAt}
          reason={reason}
          errors={errors}
          onMeasuredAt={setMeasuredAt}
          onReason={setReason}
        />
        <button type="submit" id="save-vitals" disabled={record.isPending}>
          {record.isPending ? t('common.saving') : t('clinic.vitals.save')}
        </button>
        <Status message={message} error={record.isError} id="vitals-status" />
      </form>
      <VisitVitals kunjunganId={kunjunganId} />
    </section>
  );
}

function VitalInput({
  name,
  value,
  error,
  ageYears,
  onValue,
}: {
  name: string;
  value: string;
  error?: string | undefined;
  ageYears: number | undefined;
  onValue: (v: string) => void;
}) {
  const { t } = useTranslation();
  const flag = typedFlag(name, value, ageYears);
  const id = `vital-${name}`;
  const described = [error ? `${id}-error` : '', flag ? `${id}-flag` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' invalid' : ''}${flag ? ' abnormal' : ''}`}>
      <label htmlFor={id}>
        {t(`clinic.vitals.sign.${name as 'nadi'}`)} <span className="unit">({t(`clinic.vitals.unit.${name as 'nadi'}`)})</span>
      </label>
      <input
        id={id}
        name={name}
        inputMode="decimal"
        autoComplete="off"
        value={value}
        aria-invalid={Boolean(error)}
        aria-describedby={described}
        onChange={(e) => onValue(e.target.value)}
      />
      <div className="field-notes">
        {flag ? (
          <small id={`${id}-flag`} className="flag-note" data-flag={flag}>
            {t(`clinic.flag.${flag as 'H'}`)}
          </small>
        ) : null}
        <FieldError id={`${id}-error`} error={error} />
      </div>
    </div>
  );
}

/** When the signs were measured (empty: now), and in a finished visit, required with why they are added now. */
function WhenAndWhy({
  finished,
  measuredAt,
  reason,
  errors,
  onMeasuredAt,
  onReason,
}: {
  finished: boolean;
  measuredAt: string;
  reason: string;
  errors: Record<string, string>;
  onMeasuredAt: (v: string) => void;
  onReason: (v: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="measured-at">
      <TextField
        name="measuredAt"
        type="datetime-local"
        label={t('clinic.vitals.measuredAt')}
        hint={t(finished ? 'clinic.vitals.measuredAtLate' : 'clinic.vitals.measuredAtHint')}
        value={measuredAt}
        max={localMinute(new Date())}
        error={errors.waktu}
        onValue={onMeasuredAt}
        required={finished}
      />
      {finished ? (
        <TextField
          name="vitals-reason"
          label={t('clinic.vitals.reason')}
          hint={t('clinic.vitals.reasonHint')}
          value={reason}
          error={errors.reason}
          onValue={onReason}
          required
          maxLength={500}
        />
      ) : null}
    </div>
  );
}

/** This visit's recorded vital signs, each with its flag in words. */
function VisitVitals({ kunjunganId }: { kunjunganId: string }) {
  const { t } = useTranslation();
  const f = useFormat();
  const trpc = useTRPC();
  const list = useQuery(trpc.vital.list.queryOptions({ kunjunganId }));
  if (!list.data?.length) return null;
  return (
    <ul className="entries" id="visit-vitals">
      {list.data.map((e) => (
        <li key={e.id} className={e.flag && e.flag !== 'N' ? 'abnormal' : undefined} data-flag={e.flag ?? ''} data-kode={e.kode ?? ''}>
          {describeVital(t, e)}
          {e.flag && e.flag !== 'N' ? <strong className="flag"> · {t(`clinic.flag.${e.flag as 'H'}`)}</strong> : null}
          <span className="muted"> · {f.dateTime(e.waktu)}</span>
        </li>
      ))}
    </ul>
  );
}
