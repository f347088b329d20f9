// Sign-in: a passkey offered in the e-mail field's autofill (conditional UI), or an explicit passkey
// prompt, or a 6-digit code by e-mail, or a sign-in link by e-mail. Then straight to where the person
// was going (or their role's start page). Also the OAuth provider's login page: opened with a signed
// authorization request, it signs the person in (even when a session exists: the application may ask
// for a fresh sign-in) and identity's answer says where the authorization continues (lib/oauth.ts).
import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { safeReturnPath } from '@simrs/contracts/return-path';
import { authClient, AuthError, authErrorOf, unwrap } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { authorizeAgain, continueTo, nextStep, signedRequest } from '../lib/oauth.ts';
import { LanguageSelect } from '../ui/LanguageSelect.tsx';
import { Loading, PageTitle, Status } from '../ui/kit.tsx';

/** A path of this site to continue to (the product's one rule, @simrs/contracts); anything else is ignored. */
function safeNext(value: string | null): string {
  const path = safeReturnPath(value, window.location.origin);
  // Back to this page would only show the form again.
  return path.startsWith('/masuk') ? '/' : path;
}

const LINK_ERRORS: Record<string, string> = {
  INVALID_TOKEN: 'INVALID_TOKEN',
  EXPIRED_TOKEN: 'INVALID_TOKEN',
  ACCOUNT_DISABLED: 'ACCOUNT_DISABLED',
};

export function SignIn() {
  const [params] = useSearchParams();
  // `callbackURL` is what links to identity's former sign-in page carried.
  const next = safeNext(params.get('next') ?? params.get('callbackURL'));
  const oauth = signedRequest(params);
  const session = authClient.useSession();
  if (session.isPending && !session.data) return <Loading />;
  if (session.data && !oauth) return <Navigate to={next} replace />;
  // The form only once it is known nobody is signed in: conditional UI needs its e-mail field in the page.
  return <SignInForm next={next} oauth={oauth} />;
}

type Shown = { message: string; error: boolean } | undefined;
type SetShown = (status: Shown) => void;
type Translate = ReturnType<typeof useTranslation>['t'];

/** What the page says on arrival: a failed sign-in link, or that an application asked for the sign-in. */
function initialStatus(t: Translate, linkError: string | null, oauth: URLSearchParams | undefined): Shown {
  if (linkError) return { message: errorMessage(t, new AuthError(401, LINK_ERRORS[linkError] ?? 'INVALID_TOKEN', undefined)), error: true };
  return oauth ? { message: t('signIn.continueApp'), error: false } : undefined;
}

/** Conditional UI: the browser offers this site's passkeys in the e-mail field's autofill. */
function usePasskeyAutofill(done: (answer: unknown) => void, setStatus: SetShown) {
  const { t } = useTranslation();
  useEffect(() => {
    let live = true;
    const pkc = window.PublicKeyCredential as
      (typeof PublicKeyCredential & { isConditionalMediationAvailable?: () => Promise<boolean> }) | undefined;
    void pkc?.isConditionalMediationAvailable?.().then(async (available) => {
      if (!available || !live) return;
      const answer = await authClient.signIn.passkey({ autoFill: true });
      if (!live) return;
      if (answer.data) done(answer.data);
      else if (answer.error) {
        const failure = authErrorOf(answer.error as Parameters<typeof authErrorOf>[0]);
        if (!/cancel|abort/i.test(`${failure.message} ${failure.code ?? ''}`))
          setStatus({ message: errorMessage(t, failure), error: true });
      }
    });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per visit of the page
  }, []);
}

/** One sign-in step at a time: busy while it runs, its failure shown. */
function useAttempt(setStatus: SetShown) {
  const { t } = useTranslation();
  const [busy, setBusy] = useState(false);
  async function attempt(run: () => Promise<void>) {
    setBusy(true);
    try {
      await run();
    } catch (err) {
      setStatus({ message: errorMessage(t, err), error: true });
    } finally {
      setBusy(false);
    }
  }
  return { busy, attempt };
}

interface EmailSignInDeps {
  next: string;
  oauth: URLSearchParams | undefined;
  done: (answer?: unknown) => void;
  attempt: (run: () => Promise<void>) => Promise<void>;
  setStatus: SetShown;
}

/** Sign-in by e-mail: a 6-digit code (sent, then verified) or a sign-in link. */
function useEmailSignIn({ next, oauth, done, attempt, setStatus }: EmailSignInDeps) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [otp, setOtp] = useState('');
  const [codeSent, setCodeSent] = useState(false);
  const otpRef = useRef<HTMLInputElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (codeSent) otpRef.current?.focus();
  }, [codeSent]);

  const needEmail = () => {
    if (email.trim()) return false;
    setStatus({ message: t('signIn.enterEmail'), error: true });
    emailRef.current?.focus();
    return true;
  };

  const sendCode = (e: FormEvent) => {
    e.preventDefault();
    if (needEmail()) return;
    void attempt(async () => {
      await unwrap(authClient.emailOtp.sendVerificationOtp({ email: email.trim(), type: 'sign-in' }));
      setCodeSent(true);
      setOtp('');
      setStatus({ message: t('signIn.codeSent'), error: false });
    });
  };

  const verifyCode = (e: FormEvent) => {
    e.preventDefault();
    void attempt(async () => {
      done(await unwrap(authClient.signIn.emailOtp({ email: email.trim(), otp: otp.trim() })));
    });
  };

  const sendLink = () => {
    if (needEmail()) return;
    void attempt(async () => {
      // identity lands a link on the dashboard (and a failed one on /masuk) by itself; only a deeper page is
      // named, or the authorization request, run anew once the link has signed the person in.
      const callbackURL = oauth ? authorizeAgain(oauth) : next === '/' ? undefined : next;
      await unwrap(authClient.signIn.magicLink({ email: email.trim(), ...(callbackURL ? { callbackURL } : {}) }));
      setStatus({ message: t('signIn.linkSent'), error: false });
    });
  };

  return { email, setEmail, otp, setOtp, codeSent, otpRef, emailRef, sendCode, verifyCode, sendLink };
}

type EmailSignIn = ReturnType<typeof useEmailSignIn>;

type EmailFormProps = Pick<EmailSignIn, 'email' | 'setEmail' | 'emailRef' | 'codeSent' | 'sendCode' | 'sendLink'> & { busy: boolean };

function EmailForm({ email, setEmail, emailRef, codeSent, sendCode, sendLink, busy }: EmailFormProps) {
  const { t } = useTranslation();
  return (
    <form id="email-form" onSubmit={sendCode} noValidate>
      <label htmlFor="email">{t('signIn.email')}</label>
      <input
        ref={emailRef}
        id="email"
        name="email"
        type="email"
        autoComplete="username webauthn"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        required
      />
      <div className="actions">
        <button id="send-otp" type="submit" disabled={busy}>
          {codeSent ? t('signIn.resendCode') : t('signIn.sendCode')}
        </button>
        <button id="send-magic-link" type="button" className="secondary" onClick={sendLink} disabled={busy}>
          {t('signIn.sendLink')}
        </button>
      </div>
    </form>
  );
}

type OtpFormProps = Pick<EmailSignIn, 'otp' | 'setOtp' | 'otpRef' | 'verifyCode'> & { busy: boolean };

function OtpForm({ otp, setOtp, otpRef, verifyCode, busy }: OtpFormProps) {
  const { t } = useTranslation();
  return (
    <form id="otp-form" onSubmit={verifyCode} noValidate>
      <label htmlFor="otp">{t('signIn.code')}</label>
      <input
        ref={otpRef}
        id="otp"
        name="otp"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        value={otp}
        onChange={(e) => setOtp(e.target.value)}
        required
      />
      <div className="actions">
        <button id="verify-otp" type="submit" disabled={busy}>
          {t('signIn.submitCode')}
        </button>
      </div>
    </form>
  );
}

function SignInForm({ next, oauth }: { next: string; oauth: URLSearchParams | undefined }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [status, setStatus] = useState<Shown>(initialStatus(t, params.get('error'), oauth));
  // Signed in: on to the authorization identity continues (or runs anew), else where the person was going.
  const done = (answer?: unknown) =>
    oauth ? continueTo(nextStep(answer) ?? authorizeAgain(oauth)) : void navigate(next, { replace: true });
  usePasskeyAutofill(done, setStatus);
  const { busy, attempt } = useAttempt(setStatus);
  const { email, setEmail, otp, setOtp, codeSent, otpRef, emailRef, sendCode, verifyCode, sendLink } = useEmailSignIn({
    next,
    oauth,
    done,
    attempt,
    setStatus,
  });

  const passkey = () =>
    void attempt(async () => {
      done(await unwrap(authClient.signIn.passkey()));
    });

  return (
    <div className="sign-in-page">
      <main id="main" className="sign-in card">
        <div className="sign-in-top">
          <span className="logo" aria-hidden="true">
            ✚
          </span>
          <LanguageSelect />
        </div>
        <PageTitle text={t('signIn.title')} />
        <p className="lead">{t('signIn.lead')}</p>
        <Status message={status?.message} error={status?.error} id="status" />
        <EmailForm
          email={email}
          setEmail={setEmail}
          emailRef={emailRef}
          codeSent={codeSent}
          sendCode={sendCode}
          sendLink={sendLink}
          busy={busy}
        />
        {codeSent ? <OtpForm otp={otp} setOtp={setOtp} otpRef={otpRef} verifyCode={verifyCode} busy={busy} /> : null}
        <div className="divider" role="separator">
          <span>{t('signIn.or')}</span>
        </div>
        <button id="passkey-sign-in" type="button" className="wide" onClick={passkey} disabled={busy}>
          {t('signIn.passkey')}
        </button>
        <p className="hint">{t('signIn.passkeyHint')}</p>
      </main>
    </div>
  );
}
