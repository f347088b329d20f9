// The visit's SOAP note: written once, then corrected as a new version with a reason (the API keeps
// every version). Readers without the right to write see it read-only.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage, fieldErrorsOf } from '../lib/errors.ts';
import { useCan } from '../lib/session.tsx';
import { useTRPC } from '../lib/trpc.ts';
import { Field, Status, TextField } from '../ui/kit.tsx';

const PARTS = ['subjective', 'objective', 'assessment', 'plan'] as const;
type Part = (typeof PARTS)[number];
type Note = Record<Part, string>;
const EMPTY: Note = { subjective: '', objective: '', assessment: '', plan: '' };

export function SoapNote({ kunjunganId }: { kunjunganId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const list = useQuery(trpc.catatan.list.queryOptions({ kunjunganId }));
  const canWrite = useCan('catatan.record');
  const current = list.data?.[0];
  // Kept here: a save brings a new version, and the form is made again for it (its key), which would
  // lose a message held inside the form.
  const [message, setMessage] = useState<string>();
  return (
    <section aria-labelledby="note-title" id="soap-note">
      <h2 id="note-title">{t('clinic.note.title')}</h2>
      {list.isPending ? null : canWrite ? (
        <NoteForm
          key={current ? `${current.id}:${current.version}` : 'new'}
          kunjunganId={kunjunganId}
          current={current}
          message={message}
          setMessage={setMessage}
        />
      ) : current ? (
        <dl className="record">
          {PARTS.map((p) => (
            <div key={p} className="record-item">
              <dt>{t(`clinic.note.${p}`)}</dt>
              <dd>{String(current.isi[p] ?? '') || '—'}</dd>
            </div>
          ))}
        </dl>
      ) : (
        <p>{t('clinic.note.none')}</p>
      )}
    </section>
  );
}

interface Current {
  id: string;
  version: number;
  isi: Record<string, unknown>;
}

interface NoteFormProps {
  kunjunganId: string;
  current: Current | undefined;
  message: string | undefined;
  setMessage: (message: string | undefined) => void;
}

function NoteForm({ kunjunganId, current, message, setMessage }: NoteFormProps) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [note, setNote] = useState<Note>(
    current ? (Object.fromEntries(PARTS.map((p) => [p, String(current.isi[p] ?? '')])) as Note) : EMPTY,
  );
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const record = useMutation(trpc.catatan.record.mutationOptions());
  const amend = useMutation(trpc.catatan.amend.mutationOptions());
  const pending = record.isPending || amend.isPending;

  const handlers = {
    onSuccess: () => {
      setMessage(t('clinic.note.saved'));
      void queryClient.invalidateQueries({ queryKey: trpc.catatan.list.pathKey() });
    },
    onError: (err: unknown) => {
      const fe = fieldErrorsOf(t, err);
      setErrors(fe);
      if (!fe.reason) setMessage(fe._input ?? errorMessage(t, err));
    },
  };
  function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    setMessage(undefined);
    if (current) amend.mutate({ id: current.id, expectedVersion: current.version, reason: reason.trim(), ...note }, handlers);
    else record.mutate({ kunjunganId, ...note }, handlers);
  }

  return (
    <form onSubmit={submit} noValidate id="note-form">
      {PARTS.map((p) => (
        <Field key={p} label={t(`clinic.note.${p}`)} error={errors[p]}>
          {(a11y) => (
            <textarea
              {...a11y}
              name={`note-${p}`}
              rows={3}
              maxLength={4000}
              value={note[p]}
              onChange={(e) => setNote((n) => ({ ...n, [p]: e.target.value }))}
            />
          )}
        </Field>
      ))}
      {current ? (
        <TextField
          name="note-reason"
          label={t('clinic.note.reason')}
          hint={t('clinic.note.reasonHint')}
          value={reason}
          error={errors.reason}
          onValue={setReason}
          required
          maxLength={500}
        />
      ) : null}
      <button type="submit" id="save-note" disabled={pending}>
        {current ? t('clinic.note.amend') : t('clinic.note.save')}
      </button>
      <Status message={message} error={record.isError || amend.isError} id="note-status" />
    </form>
  );
}
