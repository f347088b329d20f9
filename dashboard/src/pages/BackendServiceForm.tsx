// Tenant administration: registering a SMART Backend Service (a data warehouse, a registry) that
// reads this hospital's FHIR data for itself, with no user: its name, the `system/` scopes it may
// ask for (read and search only), and its public keys, as the JWKS URL identity fetches them from or
// the JWKS itself (pasted, or read from a file here). The administrator's session registers it at the
// same RFC 7591 endpoint every client uses, so identity applies one set of rules whoever registers.
import { useId, useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { BACKEND_ASSERTION_ALGS, SMART_RESOURCES } from '@simrs/contracts/smart';
import { identity } from '../lib/auth.ts';
import type { RegisteredClient } from '../lib/auth.ts';
import { errorMessage } from '../lib/errors.ts';
import { Field, FieldError, Status, TextField } from '../ui/kit.tsx';
import { ScopeList } from '../ui/ScopeList.tsx';

type KeySource = 'jwks' | 'url';
type Problems = Partial<Record<'name' | 'scopes' | 'keys', string>>;

const scopeOf = (resource: string) => `system/${resource}.rs`;

/** The keys as registration metadata, or which input is wrong: an https URL, or an object with a `keys` list. */
function keysMetadata(source: KeySource, url: string, text: string): Record<string, unknown> | 'url' | 'jwks' {
  // identity fetches the keys over https only; the backstop is its own refusal, translated in errors.ts.
  if (source === 'url') return URL.canParse(url.trim()) && new URL(url.trim()).protocol === 'https:' ? { jwks_uri: url.trim() } : 'url';
  try {
    const jwks = JSON.parse(text) as unknown;
    const keys = (jwks as { keys?: unknown } | null)?.keys;
    return Array.isArray(keys) && keys.length > 0 ? { jwks } : 'jwks';
  } catch {
    return 'jwks';
  }
}

export function BackendServiceForm({ listKey }: { listKey: readonly unknown[] }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [resources, setResources] = useState<Set<string>>(new Set(['Patient']));
  const [source, setSource] = useState<KeySource>('jwks');
  const [url, setUrl] = useState('');
  const [text, setText] = useState('');
  const [problems, setProblems] = useState<Problems>({});
  const register = useMutation({
    mutationFn: (metadata: Record<string, unknown>) => identity.registerBackendService(metadata),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: listKey }),
  });

  const toggle = (resource: string, on: boolean) =>
    setResources((now) => {
      const next = new Set(now);
      if (on) next.add(resource);
      else next.delete(resource);
      return next;
    });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const keys = keysMetadata(source, url, text);
    const found: Problems = {
      ...(name.trim() ? {} : { name: t('fieldError.required') }),
      ...(resources.size ? {} : { scopes: t('backend.scopesRequired') }),
      ...(typeof keys === 'string' ? { keys: t(keys === 'url' ? 'backend.badUrl' : 'backend.badJwks') } : {}),
    };
    setProblems(found);
    if (typeof keys === 'string' || Object.keys(found).length) {
      // The first field to fix takes focus, so a keyboard or screen-reader user lands on its message.
      const form = e.currentTarget as HTMLFormElement;
      setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    register.mutate({
      client_name: name.trim(),
      token_endpoint_auth_method: 'private_key_jwt',
      grant_types: ['client_credentials'],
      scope: SMART_RESOURCES.filter((r) => resources.has(r))
        .map(scopeOf)
        .join(' '),
      ...keys,
    });
  };

  return (
    <form className="card" id="backend-form" onSubmit={submit} aria-labelledby="backend-title" noValidate>
      <h2 id="backend-title">{t('backend.title')}</h2>
      <p className="hint">{t('backend.hint')}</p>
      <TextField label={t('backend.name')} name="backend-name" value={name} onValue={setName} required error={problems.name} />
      <ScopeChoice resources={resources} onToggle={toggle} error={problems.scopes} />
      <KeysInput
        source={source}
        onSource={(next) => (setSource(next), setProblems(({ keys: _keys, ...rest }) => rest))}
        url={url}
        onUrl={setUrl}
        text={text}
        onText={setText}
        error={problems.keys}
      />
      <div className="actions">
        <button type="submit" id="register-backend" disabled={register.isPending}>
          {t('backend.register')}
        </button>
      </div>
      {register.isError ? <Status message={errorMessage(t, register.error)} error id="backend-status" /> : null}
      {register.data ? <Registered client={register.data} fallbackName={name} /> : null}
    </form>
  );
}

/** The `system/` read-and-search scope of each resource type, as one checkbox each. */
function ScopeChoice(props: { resources: Set<string>; onToggle: (resource: string, on: boolean) => void; error: string | undefined }) {
  const { t } = useTranslation();
  return (
    <fieldset id="backend-scopes" aria-describedby={props.error ? 'backend-scopes-error' : undefined}>
      <legend>{t('backend.scopes')}</legend>
      {SMART_RESOURCES.map((r) => (
        <div className="checkbox" key={r}>
          <input
            id={`scope-${r}`}
            type="checkbox"
            value={scopeOf(r)}
            checked={props.resources.has(r)}
            aria-invalid={Boolean(props.error)}
            onChange={(e) => props.onToggle(r, e.target.checked)}
          />
          <label htmlFor={`scope-${r}`}>
            {t(`backend.resource.${r}`)} <code>{scopeOf(r)}</code>
          </label>
        </div>
      ))}
      <FieldError id="backend-scopes-error" error={props.error} />
    </fieldset>
  );
}

/** The registered service: its client ID, its scopes in words, and how it asks for tokens. */
function Registered({ client, fallbackName }: { client: RegisteredClient; fallbackName: string }) {
  const { t } = useTranslation();
  return (
    <div className="token" id="registered-backend" role="status">
      <p>{t('backend.registered', { name: client.client_name ?? fallbackName })}</p>
      <label htmlFor="backend-client-id">{t('backend.clientId')}</label>
      <input id="backend-client-id" readOnly value={client.client_id} onFocus={(e) => e.target.select()} className="mono" />
      <ScopeList scopes={(client.scope ?? '').split(' ').filter(Boolean)} />
      <p className="hint">
        {t('backend.howToSign', { algs: BACKEND_ASSERTION_ALGS.join(' / '), url: `${window.location.origin}/api/auth/oauth2/token` })}
      </p>
    </div>
  );
}

interface KeysInputProps {
  source: KeySource;
  onSource: (source: KeySource) => void;
  url: string;
  onUrl: (url: string) => void;
  text: string;
  onText: (text: string) => void;
  error: string | undefined;
}

/** Where the service's public keys come from: a URL identity fetches, or the JWKS itself. */
function KeysInput({ source, onSource, url, onUrl, text, onText, error }: KeysInputProps) {
  const { t } = useTranslation();
  const fileId = useId();
  const readFile = async (file: File | undefined) => {
    // An unreadable file leaves the text as it was.
    const read = await file?.text().catch(() => undefined);
    if (read !== undefined) onText(read);
  };
  return (
    <>
      <fieldset id="backend-keys">
        <legend>{t('backend.keys')}</legend>
        {(['jwks', 'url'] as const).map((s) => (
          <div className="checkbox" key={s}>
            <input id={`keys-${s}`} type="radio" name="key-source" value={s} checked={source === s} onChange={() => onSource(s)} />
            <label htmlFor={`keys-${s}`}>{t(s === 'jwks' ? 'backend.keysInline' : 'backend.keysUrl')}</label>
          </div>
        ))}
      </fieldset>
      {source === 'url' ? (
        <TextField
          label={t('backend.jwksUrl')}
          name="jwks-url"
          type="url"
          value={url}
          onValue={onUrl}
          required
          error={error}
          hint={t('backend.jwksUrlHint')}
        />
      ) : (
        <>
          <Field label={t('backend.jwks')} required error={error} hint={t('backend.jwksHint')}>
            {(a11y) => <textarea {...a11y} name="jwks" rows={6} className="mono" value={text} onChange={(e) => onText(e.target.value)} />}
          </Field>
          <div className="field">
            <label htmlFor={fileId}>{t('backend.jwksFile')}</label>
            <input id={fileId} type="file" accept=".json,.jwks,application/json" onChange={(e) => void readFile(e.target.files?.[0])} />
          </div>
        </>
      )}
    </>
  );
}
