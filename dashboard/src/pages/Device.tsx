// Connect a device (RFC 8628): type the code a device shows, see which application asks for what,
// approve or deny. Better Auth's device endpoints, through identity's rules (same hospital only). This is
// identity's verification_uri; verification_uri_complete adds `?user_code=`, which is looked up at once.
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { AuthError, identity } from '../lib/auth.ts';
import type { DeviceRequest } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { Loading, PageTitle, Status, TextField } from '../ui/kit.tsx';
import { ScopeList } from '../ui/ScopeList.tsx';

/** The request a code stands for, the application's name, and the answer given to it. */
function useDeviceRequest() {
  const [params] = useSearchParams();
  const fromLink = (params.get('user_code') ?? '').trim();
  const [code, setCode] = useState(fromLink);
  const [request, setRequest] = useState<DeviceRequest>();
  const [answered, setAnswered] = useState<'approved' | 'denied'>();
  // Whoever approves sees the application by name (identity answers for clients of their own hospital).
  const client = useQuery({
    queryKey: ['identity', 'oauth-client', request?.client_id],
    queryFn: () => identity.clientName(request!.client_id!),
    enabled: Boolean(request?.client_id),
    retry: false,
  });
  const lookup = useMutation({ mutationFn: identity.device, onSuccess: (r) => (setRequest(r), setAnswered(undefined)) });
  const answer = useMutation({
    mutationFn: async (approve: boolean) =>
      approve ? identity.approveDevice(request!.user_code) : identity.denyDevice(request!.user_code),
    onSuccess: (_r, approve) => setAnswered(approve ? 'approved' : 'denied'),
  });
  // Opened from verification_uri_complete: the code is filled in, and what it asks for shown at once.
  useEffect(() => {
    if (fromLink) lookup.mutate(fromLink);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per code in the address
  }, [fromLink]);
  return { code, setCode, request, answered, client, lookup, answer };
}

type DeviceState = ReturnType<typeof useDeviceRequest>;

function DeviceCodeForm({ code, setCode, lookup }: Pick<DeviceState, 'code' | 'setCode' | 'lookup'>) {
  const { t } = useTranslation();
  const submit = (e: FormEvent) => (e.preventDefault(), code.trim() && lookup.mutate(code.trim()));
  const lookupError =
    lookup.error instanceof AuthError && lookup.error.code === 'invalid_request' ? t('apiError.deviceInvalid') : undefined;
  return (
    <form className="inline" onSubmit={submit} id="device-form">
      <TextField
        label={t('device.code')}
        name="user_code"
        value={code}
        onValue={setCode}
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        required
        error={lookup.isError ? (lookupError ?? errorMessage(t, lookup.error)) : undefined}
      />
      <button type="submit" id="device-lookup" disabled={lookup.isPending}>
        {t('device.continue')}
      </button>
    </form>
  );
}

function AnswerActions({ answered, answer }: Pick<DeviceState, 'answered' | 'answer'>) {
  const { t } = useTranslation();
  if (answered) return <Status message={answered === 'approved' ? t('device.approved') : t('device.denied')} id="device-status" />;
  return (
    <div className="actions">
      <button type="button" id="device-approve" onClick={() => answer.mutate(true)} disabled={answer.isPending}>
        {t('device.approve')}
      </button>
      <button type="button" id="device-deny" className="secondary" onClick={() => answer.mutate(false)} disabled={answer.isPending}>
        {t('device.deny')}
      </button>
    </div>
  );
}

/** What a pending request asks for, and the buttons to answer it. */
function PendingRequest({
  request,
  client,
  answered,
  answer,
}: Omit<DeviceState, 'code' | 'setCode' | 'lookup'> & { request: DeviceRequest }) {
  const { t } = useTranslation();
  if (client.isPending) return <Loading />;
  const clientName = request.client_id ? client.data?.name || request.client_id : undefined;
  return (
    <>
      <h2 id="device-client">{t('device.asks', { client: clientName })}</h2>
      <p>{t('device.codeShown', { code: request.user_code.toUpperCase() })}</p>
      <ScopeList scopes={(request.scope ?? '').split(' ').filter(Boolean)} />
      <p className="hint">{t('device.onlyIfYou')}</p>
      <AnswerActions answered={answered} answer={answer} />
      {answer.isError ? <Status message={errorMessage(t, answer.error)} error /> : null}
    </>
  );
}

export default function Device() {
  const { t } = useTranslation();
  const { code, setCode, request, answered, client, lookup, answer } = useDeviceRequest();
  return (
    <section>
      <PageTitle text={t('device.title')} />
      <p className="lead">{t('device.lead')}</p>
      <DeviceCodeForm code={code} setCode={setCode} lookup={lookup} />
      {request ? (
        <div className="card" id="device-request">
          {request.status !== 'pending' || !request.client_id ? (
            <p>{request.client_id ? t('device.alreadyAnswered') : t('device.notYours')}</p>
          ) : (
            <PendingRequest request={request} client={client} answered={answered} answer={answer} />
          )}
        </div>
      ) : null}
    </section>
  );
}
