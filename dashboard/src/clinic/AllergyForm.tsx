// Recording an allergy (substance, kind, criticality, reaction) or that the patient, asked, has none
// known. The API keeps the chart consistent (no "none known" beside an allergy) and its refusal is
// shown as it says it.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { SelectField, Status, TextField } from '../ui/kit.tsx';

const CATEGORIES = ['food', 'medication', 'environment', 'biologic'] as const;
const CRITICALITY = ['low', 'high', 'unable-to-assess'] as const;

export function AllergyForm({ pasienId, kunjunganId }: { pasienId: string; kunjunganId?: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ substance: '', category: '', criticality: '', reaction: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();
  const record = useMutation(trpc.alergi.record.mutationOptions());
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  function send(noneKnown: boolean) {
    setErrors({});
    setMessage(undefined);
    const fields = noneKnown
      ? { noneKnown: true }
      : {
          substance: form.substance.trim() || undefined,
          category: (form.category || undefined) as (typeof CATEGORIES)[number] | undefined,
          criticality: (form.criticality || undefined) as (typeof CRITICALITY)[number] | undefined,
          reaction: form.reaction.trim() || undefined,
        };
    record.mutate(
      { pasienId, ...(kunjunganId ? { kunjunganId } : {}), ...fields },
      {
        onSuccess: () => {
          setForm({ substance: '', category: '', criticality: '', reaction: '' });
          setMessage(t('clinic.allergy.saved'));
          void queryClient.invalidateQueries({ queryKey: trpc.alergi.list.pathKey() });
        },
        onError: (err) => {
          const fe = fieldErrorsOf(t, err);
          setErrors(fe);
          const inPlace = Object.keys(fe).some((k) => k !== '_input' && k !== 'noneKnown');
          setMessage(inPlace ? undefined : (fe._input ?? fe.noneKnown ?? errorMessage(t, err)));
        },
      },
    );
  }

  const submit = (e: FormEvent) => (e.preventDefault(), send(false));
  return (
    <section aria-labelledby="allergy-title" id="allergy-form">
      <h2 id="allergy-title">{t('clinic.allergy.formTitle')}</h2>
      <form onSubmit={submit} noValidate>
        <AllergyFields form={form} errors={errors} set={set} />
        <div className="actions">
          <button type="submit" id="save-allergy" disabled={record.isPending}>
            {t('clinic.allergy.save')}
          </button>
          <button type="button" className="secondary" id="none-known" disabled={record.isPending} onClick={() => send(true)}>
            {t('clinic.allergy.recordNoneKnown')}
          </button>
        </div>
        <Status message={message} error={record.isError} id="allergy-status" />
      </form>
    </section>
  );
}

type AllergyFormValues = { substance: string; category: string; criticality: string; reaction: string };

function AllergyFields({
  form,
  errors,
  set,
}: {
  form: AllergyFormValues;
  errors: Record<string, string>;
  set: (k: keyof AllergyFormValues) => (v: string) => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="form-grid">
      <TextField
        name="allergy-substance"
        label={t('clinic.allergy.substance')}
        value={form.substance}
        error={errors.substance}
        onValue={set('substance')}
        maxLength={200}
      />
      <SelectField
        name="allergy-category"
        label={t('clinic.allergy.category')}
        value={form.category}
        error={errors.category}
        placeholder={t('common.choose')}
        options={CATEGORIES.map((c) => ({ value: c, label: t(`clinic.allergy.categories.${c}`) }))}
        onValue={set('category')}
      />
      <SelectField
        name="allergy-criticality"
        label={t('clinic.allergy.criticalityLabel')}
        value={form.criticality}
        error={errors.criticality}
        placeholder={t('common.choose')}
        options={CRITICALITY.map((c) => ({ value: c, label: t(`clinic.allergy.criticality.${c}`) }))}
        onValue={set('criticality')}
      />
      <TextField
        name="allergy-reaction"
        label={t('clinic.allergy.reaction')}
        value={form.reaction}
        error={errors.reaction}
        onValue={set('reaction')}
        maxLength={500}
      />
    </div>
  );
}
