// The hospital's access settings (pengaturan.get/update): how many days after a visit its clinicians
// keep their treatment relationship, and how long a break-the-glass grant lasts.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { Loading, Status, TextField } from '../ui/kit.tsx';

export function AccessSettings() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.pengaturan.get.queryOptions());
  const { t } = useTranslation();
  return (
    <section aria-labelledby="settings-title" id="access-settings">
      <h2 id="settings-title">{t('clinic.settings.title')}</h2>
      {settings.isPending ? <Loading /> : null}
      {settings.data ? <SettingsForm initial={settings.data} /> : null}
    </section>
  );
}

function SettingsForm({ initial }: { initial: { relationshipDays: number; btgMinutes: number } }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [days, setDays] = useState(String(initial.relationshipDays));
  const [minutes, setMinutes] = useState(String(initial.btgMinutes));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();
  const update = useMutation(trpc.pengaturan.update.mutationOptions());
  function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    update.mutate(
      { relationshipDays: Number(days), btgMinutes: Number(minutes) },
      {
        onSuccess: (s) => (queryClient.setQueryData(trpc.pengaturan.get.queryKey(), s), setMessage(t('clinic.settings.saved'))),
        onError: (err) => (setErrors(fieldErrorsOf(t, err)), setMessage(errorMessage(t, err))),
      },
    );
  }
  return (
    <form onSubmit={submit} noValidate className="inline-form">
      <TextField
        name="relationship-days"
        inputMode="numeric"
        label={t('clinic.settings.relationshipDays')}
        hint={t('clinic.settings.relationshipHint')}
        value={days}
        error={errors.relationshipDays}
        onValue={setDays}
      />
      <TextField
        name="btg-minutes"
        inputMode="numeric"
        label={t('clinic.settings.btgMinutes')}
        value={minutes}
        error={errors.btgMinutes}
        onValue={setMinutes}
      />
      <button type="submit" id="save-settings" disabled={update.isPending}>
        {t('common.save')}
      </button>
      <Status message={message} error={update.isError} id="settings-status" />
    </form>
  );
}
