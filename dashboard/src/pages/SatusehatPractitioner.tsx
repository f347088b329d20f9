// A practitioner's NIK on the admin's SATUSEHAT page: SATUSEHAT knows practitioners by it, and a visit
// whose attending practitioner has none is parked as incomplete until it is filled in.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { Status, TextField } from '../ui/kit.tsx';

export function SatusehatPractitioner() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const [userId, setUserId] = useState('');
  const [nik, setNik] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();
  const save = useMutation(trpc.satusehat.practitioner.mutationOptions());
  function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    save.mutate(
      { userId, nik },
      {
        onSuccess: () => setMessage(t('satusehat.practitioner.saved', { userId })),
        onError: (err) => (setErrors(fieldErrorsOf(t, err)), setMessage(errorMessage(t, err))),
      },
    );
  }
  return (
    <section aria-labelledby="practitioner-title" id="satusehat-practitioner">
      <h2 id="practitioner-title">{t('satusehat.practitioner.title')}</h2>
      <form onSubmit={submit} noValidate className="inline-form">
        <TextField
          name="practitioner-user"
          label={t('satusehat.practitioner.userId')}
          value={userId}
          error={errors.userId}
          onValue={setUserId}
        />
        <TextField
          name="practitioner-nik"
          inputMode="numeric"
          label={t('satusehat.practitioner.nik')}
          value={nik}
          error={errors.nik}
          onValue={setNik}
        />
        <button type="submit" id="save-practitioner" disabled={save.isPending}>
          {t('common.save')}
        </button>
      </form>
      <Status message={message} error={save.isError} id="practitioner-status" />
    </section>
  );
}
