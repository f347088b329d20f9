// Register a patient, or correct one. Each field shows records' own message for it, translated, in
// place; an error summary links to them. Editing sends only what changed, with the version it was
// based on: when a colleague saved in between, their version is shown beside yours and nothing is
// overwritten until you decide.
import { useEffect, useRef, useState } from 'react';
import type { FormEvent, RefObject } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { Link, useNavigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useFormat } from '../lib/format.ts';
import { useTRPC } from '../lib/trpc.ts';
import { Loading, PageTitle, SelectField, Status, TextField } from '../ui/kit.tsx';
import { changes, CHOICES, createInput, emptyForm, FIELD_NAMES, formOf, isRequired, SECTIONS } from './patientFields.ts';
import type { FieldName, FieldSpec, FormValues, Pasien } from './patientFields.ts';

function useChoiceLabel() {
  const { t } = useTranslation();
  return (name: keyof typeof CHOICES, value: string) => (name === 'jenisKelamin' ? t(`patient.sex.${value as 'L'}`) : value);
}

interface FormProps {
  /** The failed answer being shown: the summary takes focus once per answer. */
  failure: unknown;
  values: FormValues;
  onChange: (values: FormValues) => void;
  errors: Record<string, string>;
  busy: boolean;
  submitLabel: string;
  onSubmit: () => void;
  cancelTo: string;
}

/** One field of the form: a choice or a text input, with records' message for it. */
function PatientField({
  spec,
  values,
  onChange,
  errors,
  busy,
}: Pick<FormProps, 'values' | 'onChange' | 'errors' | 'busy'> & { spec: FieldSpec }) {
  const { t } = useTranslation();
  const choiceLabel = useChoiceLabel();
  const { name } = spec;
  const common = {
    label: t(`patient.${name}`),
    error: errors[name],
    required: isRequired(name),
    name,
    value: values[name],
    onValue: (v: string) => onChange({ ...values, [name]: v }),
    disabled: busy,
  };
  if (name in CHOICES) {
    const choice = name as keyof typeof CHOICES;
    return (
      <SelectField
        {...common}
        placeholder={isRequired(name) ? t('common.choose') : t('common.notFilled')}
        options={CHOICES[choice].map((v) => ({ value: v, label: choiceLabel(choice, v) }))}
      />
    );
  }
  return (
    <TextField
      {...common}
      type={spec.type === 'date' ? 'date' : spec.type === 'tel' ? 'tel' : 'text'}
      inputMode={spec.type === 'numeric' ? 'numeric' : undefined}
      maxLength={spec.maxLength}
      autoComplete={spec.autoComplete ?? 'off'}
      hint={name === 'nik' || name === 'telepon' || name === 'noBpjs' ? t(`patient.hints.${name}`) : undefined}
    />
  );
}

/** The problems found, each linking to its field; focused by the form when a new answer failed. */
function ErrorSummary({
  focusRef,
  invalid,
  errors,
}: {
  focusRef: RefObject<HTMLDivElement | null>;
  invalid: FieldName[];
  errors: Record<string, string>;
}) {
  const { t } = useTranslation();
  return (
    <div className="error-summary" ref={focusRef} tabIndex={-1} role="alert" id="error-summary">
      <h2>{t('patientForm.fixThese')}</h2>
      {errors._input ? <p>{errors._input}</p> : null}
      <ul>
        {invalid.map((n) => (
          <li key={n}>
            <a href={`#field-${n}`} onClick={(e) => (e.preventDefault(), document.querySelector<HTMLElement>(`[name="${n}"]`)?.focus())}>
              {t(`patient.${n}`)}: {errors[n]}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

function PatientFields({ failure, values, onChange, errors, busy, submitLabel, onSubmit, cancelTo }: FormProps) {
  const { t } = useTranslation();
  const summary = useRef<HTMLDivElement>(null);
  const invalid = FIELD_NAMES.filter((n) => errors[n]);
  useEffect(() => {
    if (failure) summary.current?.focus();
  }, [failure]);

  return (
    <form
      id="patient-form"
      noValidate
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {invalid.length > 0 || errors._input ? <ErrorSummary focusRef={summary} invalid={invalid} errors={errors} /> : null}
      {SECTIONS.map((s) => (
        <fieldset key={s.key} className="grid">
          <legend>{t(`patientForm.sections.${s.key}`)}</legend>
          {s.fields.map((spec) => (
            <PatientField key={spec.name} spec={spec} values={values} onChange={onChange} errors={errors} busy={busy} />
          ))}
        </fieldset>
      ))}
      <div className="actions">
        <button type="submit" id="save-patient" disabled={busy}>
          {busy ? t('common.saving') : submitLabel}
        </button>
        <Link to={cancelTo} className="button secondary">
          {t('common.cancel')}
        </Link>
      </div>
    </form>
  );
}

export function PatientCreate() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<FormValues>(emptyForm);
  const create = useMutation(trpc.pasien.create.mutationOptions());
  const errors = create.isError ? fieldErrorsOf(t, create.error) : {};
  const general = create.isError && Object.keys(errors).length === 0 ? errorMessage(t, create.error) : undefined;

  return (
    <section>
      <PageTitle text={t('patientForm.createTitle')} />
      <Status message={general} error />
      <PatientFields
        failure={Object.keys(errors).length > 0 ? create.error : undefined}
        values={values}
        onChange={setValues}
        errors={errors}
        busy={create.isPending}
        submitLabel={t('patientForm.create')}
        cancelTo="/pasien"
        onSubmit={() =>
          create.mutate(createInput(values) as Parameters<typeof create.mutate>[0], {
            onSuccess: (p) => {
              void queryClient.invalidateQueries({ queryKey: trpc.pasien.list.pathKey() });
              navigate(`/pasien/${p.id}`, { state: { notice: t('patientForm.created', { noRm: p.noRm }) } });
            },
          })
        }
      />
    </section>
  );
}

export function PatientEdit() {
  const { id = '' } = useParams();
  const trpc = useTRPC();
  const query = useQuery(trpc.pasien.get.queryOptions({ id }));
  const { t } = useTranslation();
  if (query.isPending) return <Loading />;
  if (query.isError) return <Status message={errorMessage(t, query.error)} error />;
  return <EditForm key={query.data.id} original={query.data} />;
}

function EditForm({ original }: { original: Pasien }) {
  const { t } = useTranslation();
  const f = useFormat();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [base, setBase] = useState<Pasien>(original);
  const [values, setValues] = useState<FormValues>(() => formOf(original));
  const [theirs, setTheirs] = useState<Pasien>();
  const update = useMutation(trpc.pasien.update.mutationOptions());
  const errors = update.isError ? fieldErrorsOf(t, update.error) : {};
  const conflict = update.error instanceof TRPCClientError && (update.error.data as { httpStatus?: number })?.httpStatus === 409 && theirs;
  const general = update.isError && Object.keys(errors).length === 0 && !conflict ? errorMessage(t, update.error) : undefined;
  const mine = changes(values, formOf(base));

  const save = () => {
    if (Object.keys(mine).length === 0) return navigate(`/pasien/${base.id}`);
    update.mutate({ id: base.id, expectedVersion: base.version, ...mine } as Parameters<typeof update.mutate>[0], {
      onSuccess: (p) => {
        queryClient.setQueryData(trpc.pasien.get.queryKey({ id: p.id }), p);
        void queryClient.invalidateQueries({ queryKey: trpc.pasien.list.pathKey() });
        navigate(`/pasien/${p.id}`, { state: { notice: t('patientForm.saved') } });
      },
      onError: async (err) => {
        if (!(err instanceof TRPCClientError) || (err.data as { httpStatus?: number })?.httpStatus !== 409) return;
        setTheirs(await queryClient.fetchQuery({ ...trpc.pasien.get.queryOptions({ id: base.id }), staleTime: 0 }));
      },
    });
  };

  const resolve = (keepMine: boolean) => {
    if (!theirs) return;
    const merged = formOf(theirs);
    if (keepMine) for (const [n, v] of Object.entries(mine)) merged[n as FieldName] = v ?? '';
    setBase(theirs);
    setValues(merged);
    setTheirs(undefined);
    update.reset();
  };

  return (
    <section>
      <PageTitle text={t('patientForm.editTitle', { name: base.nama })} />
      <p className="meta">
        {t('patient.noRm')} <span className="mono">{base.noRm}</span> ·{' '}
        {t('patientForm.version', { version: base.version, when: f.dateTime(base.updatedAt) })}
      </p>
      <Status message={general} error />
      {conflict && theirs ? <ConflictPanel base={base} mine={mine} theirs={theirs} onResolve={resolve} /> : null}
      <PatientFields
        failure={Object.keys(errors).length > 0 ? update.error : undefined}
        values={values}
        onChange={setValues}
        errors={errors}
        busy={update.isPending || Boolean(conflict)}
        submitLabel={t('patientForm.save')}
        cancelTo={`/pasien/${base.id}`}
        onSubmit={save}
      />
    </section>
  );
}

/** A colleague saved meanwhile: their values beside yours, field by field; take theirs or keep yours. */
function ConflictPanel({
  base,
  mine,
  theirs,
  onResolve,
}: {
  base: Pasien;
  mine: ReturnType<typeof changes>;
  theirs: Pasien;
  onResolve: (keepMine: boolean) => void;
}) {
  const { t } = useTranslation();
  const f = useFormat();
  const differing = FIELD_NAMES.filter((n) => n in mine || (theirs[n] ?? '') !== (base[n] ?? ''));
  return (
    <div className="conflict" role="alert" id="conflict">
      <h2>{t('patientForm.conflictTitle')}</h2>
      <p>{t('patientForm.conflictText', { version: theirs.version, when: f.dateTime(theirs.updatedAt) })}</p>
      <table className="responsive">
        <thead>
          <tr>
            <th scope="col">{t('patientForm.field')}</th>
            <th scope="col">{t('patientForm.yours')}</th>
            <th scope="col">{t('patientForm.theirs')}</th>
          </tr>
        </thead>
        <tbody>
          {differing.map((n) => (
            <tr key={n} data-field={n}>
              <th scope="row">{t(`patient.${n}`)}</th>
              <td data-label={t('patientForm.yours')}>{(n in mine ? mine[n] : base[n]) || '—'}</td>
              <td data-label={t('patientForm.theirs')} className="theirs">
                {theirs[n] || '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="actions">
        <button type="button" id="take-theirs" className="secondary" onClick={() => onResolve(false)}>
          {t('patientForm.takeTheirs')}
        </button>
        <button type="button" id="keep-mine" onClick={() => onResolve(true)}>
          {t('patientForm.keepMine')}
        </button>
      </div>
    </div>
  );
}
