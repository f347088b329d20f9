// The OAuth consent page (/izin), and for a SMART standalone launch the same page with the patient
// picker (/pilih-pasien): which application asks (by name, from identity, never from the query), what
// each scope lets it do in plain words, the hospital the person is signed in to; allow or deny. The
// answer goes to identity's /oauth2/consent with the signed request, and identity says where the
// browser goes next (back to the application, with a code or with access_denied).
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Navigate, useLocation, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { authClient, identity } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { asksForPatient, consentPageFor, continueTo, nextStep, requestedScopes, signedRequest } from '../lib/oauth.ts';
import { Loading, PageTitle, Status } from '../ui/kit.tsx';
import { LanguageSelect } from '../ui/LanguageSelect.tsx';
import { PatientPicker } from '../ui/PatientPicker.tsx';
import { ScopeList } from '../ui/ScopeList.tsx';

/** The frame of the OAuth pages: a card of its own (no menu: the person is on the way to an application). */
function Frame({ children }: { children: React.ReactNode }) {
  return (
    <div className="sign-in-page">
      <main id="main" className="sign-in oauth card">
        <div className="sign-in-top">
          <span className="logo" aria-hidden="true">
            ✚
          </span>
          <LanguageSelect />
        </div>
        {children}
      </main>
    </div>
  );
}

export default function Consent() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const { pathname } = useLocation();
  const request = signedRequest(params);
  const session = authClient.useSession();
  if (!request)
    return (
      <Frame>
        <PageTitle text={t('consent.title')} />
        <Status message={t('consent.invalid')} error id="status" />
      </Frame>
    );
  if (session.isPending && !session.data) return <Loading />;
  // Signed out meanwhile: the sign-in page carries the signed request on and resumes it.
  if (!session.data) return <Navigate to={`${DASHBOARD.signIn}?${params}`} replace />;
  // One address per kind of consent: with a patient to choose, or without.
  if (consentPageFor(request) !== pathname) return <Navigate to={`${consentPageFor(request)}?${params}`} replace />;
  return (
    <Frame>
      <ConsentForm request={request} email={session.data.user.email} />
    </Frame>
  );
}

function ConsentForm({ request, email }: { request: URLSearchParams; email: string }) {
  const { t } = useTranslation();
  const clientId = request.get('client_id')!;
  const [patient, setPatient] = useState<string>();
  const [status, setStatus] = useState<{ message: string; error: boolean }>();
  const me = useQuery({ queryKey: ['identity', 'me'], queryFn: identity.me });
  // identity names only its own hospital's applications to this person: anything else cannot be allowed.
  const client = useQuery({ queryKey: ['identity', 'oauth-client', clientId], queryFn: () => identity.clientName(clientId), retry: false });
  const answer = useMutation({
    mutationFn: ({ accept }: { accept: boolean }) => identity.consent(accept, accept ? patient : undefined),
    onSuccess: (answered) => {
      const next = nextStep(answered);
      if (!next) return setStatus({ message: t('apiError.generic'), error: true });
      setStatus({ message: t('consent.continuing'), error: false });
      continueTo(next);
    },
    onError: (err) => setStatus({ message: errorMessage(t, err), error: true }),
  });
  const pickPatient = asksForPatient(request);
  const allow = () => {
    if (pickPatient && !patient) return setStatus({ message: t('consent.choosePatient'), error: true });
    answer.mutate({ accept: true });
  };
  const redirectUri = request.get('redirect_uri') ?? '';
  const redirectHost = URL.canParse(redirectUri) ? new URL(redirectUri).host : '';
  if (me.isPending || client.isPending) return <Loading />;
  const allowed = client.isSuccess;
  const name = client.data?.name?.trim() || t('consent.unknownClient');
  const busy = answer.isPending || answer.isSuccess;

  return (
    <>
      <PageTitle text={t('consent.heading', { client: name })} />
      <p>{t('consent.signedInAs', { email, hospital: me.data?.tenant.name ?? '' })}</p>
      <section aria-labelledby="scopes-title" data-client-id={clientId}>
        <h2 id="scopes-title">{t('consent.asks')}</h2>
        <ScopeList scopes={requestedScopes(request)} />
      </section>
      {redirectHost ? <p>{t('consent.goesBackTo', { host: redirectHost })}</p> : null}
      {allowed && pickPatient ? <PatientPicker chosen={patient} onChoose={setPatient} /> : null}
      {allowed ? null : (
        <p id="tenant-mismatch" className="status error">
          {t('consent.otherHospital')}
        </p>
      )}
      <Status message={status?.message} error={status?.error} id="status" />
      <div className="actions">
        {allowed ? (
          <button id="approve" type="button" onClick={allow} disabled={busy}>
            {t('consent.allow')}
          </button>
        ) : null}
        <button
          id="deny"
          type="button"
          className={allowed ? 'secondary' : undefined}
          onClick={() => answer.mutate({ accept: false })}
          disabled={busy}
        >
          {allowed ? t('consent.deny') : t('consent.goBack')}
        </button>
      </div>
    </>
  );
}
