// The hospital's SATUSEHAT connection on the admin's page: environment, client id and client secret
// (sent once, sealed by records, never shown again: the field stays empty), "test connection" with the
// platform's own answer; and a practitioner's NIK, by which SATUSEHAT knows them.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { SelectField, Status, TextField } from '../ui/kit.tsx';

function CurrentConnection() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const c = useQuery(trpc.satusehat.connection.queryOptions()).data;
  return (
    <p id="connection-current">
      {c?.configured
        ? t('satusehat.connection.current', { clientId: c.clientId, environment: c.environment })
        : t('satusehat.connection.none')}
    </p>
  );
}

export function SatusehatConnection() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.satusehat.connection.queryOptions());
  const [environment, setEnvironment] = useState<'staging' | 'production'>('staging');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string>();
  const [failed, setFailed] = useState(false);
  const connect = useMutation(trpc.satusehat.connect.mutationOptions());
  const check = useMutation(trpc.satusehat.test.mutationOptions());
  const say = (text: string, bad = false) => (setMessage(text), setFailed(bad));
  function save(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    connect.mutate(
      { environment, clientId, clientSecret },
      {
        onSuccess: (saved) => {
          queryClient.setQueryData(trpc.satusehat.connection.queryKey(), saved);
          setClientSecret('');
          say(t('satusehat.connection.saved'));
        },
        onError: (err) => (setErrors(fieldErrorsOf(t, err)), say(errorMessage(t, err), true)),
      },
    );
  }
  function test() {
    check.mutate(undefined, {
      onSuccess: (r) => say(r.ok ? t('satusehat.connection.ok') : t('satusehat.connection.refused', { message: r.message }), !r.ok),
      onError: (err) => say(errorMessage(t, err), true),
    });
  }
  const c = current.data;
  return (
    <section aria-labelledby="connection-title" id="satusehat-connection">
      <h2 id="connection-title">{t('satusehat.connection.title')}</h2>
      <CurrentConnection />
      <form onSubmit={save} noValidate className="inline-form">
        <SelectField
          name="environment"
          label={t('satusehat.connection.environment')}
          value={environment}
          options={[
            { value: 'staging', label: t('satusehat.connection.staging') },
            { value: 'production', label: t('satusehat.connection.production') },
          ]}
          onValue={(v) => setEnvironment(v as 'staging' | 'production')}
        />
        <TextField
          name="client-id"
          label={t('satusehat.connection.clientId')}
          value={clientId}
          error={errors.clientId}
          onValue={setClientId}
        />
        <TextField
          name="client-secret"
          type="password"
          autoComplete="off"
          label={t('satusehat.connection.clientSecret')}
          hint={t('satusehat.connection.secretHint')}
          value={clientSecret}
          error={errors.clientSecret}
          onValue={setClientSecret}
        />
        <button type="submit" id="save-connection" disabled={connect.isPending}>
          {t('common.save')}
        </button>
        <button type="button" id="test-connection" onClick={test} disabled={check.isPending || !c?.configured}>
          {t('satusehat.connection.test')}
        </button>
      </form>
      <Status message={message} error={failed} id="connection-status" />
    </section>
  );
}
