// Small accessible building blocks: page heading (title + focus on navigation), live status line,
// labelled form fields with their message in place, and a confirmation dialog (native <dialog>).
import { useEffect, useId, useRef } from 'react';
import type { ReactNode, SelectHTMLAttributes, InputHTMLAttributes } from 'react';
import { useTranslation } from 'react-i18next';

/** The page's h1; sets the document title and takes focus after a client-side navigation. */
export function PageTitle({ children, text }: { children?: ReactNode; text: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${text} · SIMRS`;
    if (window.history.state?.idx > 0 || document.activeElement !== document.body) ref.current?.focus({ preventScroll: true });
  }, [text]);
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children ?? text}
    </h1>
  );
}

/** A polite live region: what just happened (or went wrong). */
export function Status({ message, error = false, id }: { message?: string | undefined; error?: boolean; id?: string }) {
  return (
    <p id={id} className={error ? 'status error' : 'status'} role={error ? 'alert' : 'status'} aria-live={error ? 'assertive' : 'polite'}>
      {message ?? ''}
    </p>
  );
}

export function Loading() {
  const { t } = useTranslation();
  return (
    <p className="loading" role="status">
      {t('common.loading')}
    </p>
  );
}

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  required?: boolean;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined; required: boolean }) => ReactNode;
}

/** A label, the control, an optional hint and the field's own error message, tied together. */
export function Field({ label, error, hint, required = false, children }: FieldProps) {
  const id = useId();
  const { t } = useTranslation();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error ? 'field invalid' : 'field'}>
      <label htmlFor={id}>
        {label}
        {required ? <span className="required"> ({t('common.required')})</span> : null}
      </label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': described, required })}
      {hint ? (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      ) : null}
      <FieldError id={`${id}-error`} error={error} />
    </div>
  );
}

/** A field's own error message (none without one), under the id its control names in aria-describedby. */
export function FieldError({ id, error }: { id: string; error?: string | undefined }) {
  return error ? (
    <small id={id} className="field-error">
      {error}
    </small>
  ) : null;
}

type TextProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange'> & {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
  onValue: (value: string) => void;
};

export function TextField({ label, error, hint, required, onValue, ...input }: TextProps) {
  return (
    <Field label={label} error={error} hint={hint} required={required ?? false}>
      {(a11y) => <input {...input} {...a11y} onChange={(e) => onValue(e.target.value)} />}
    </Field>
  );
}

type SelectProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange'> & {
  label: string;
  error?: string | undefined;
  options: { value: string; label: string }[];
  placeholder?: string;
  onValue: (value: string) => void;
};

export function SelectField({ label, error, required, options, placeholder, onValue, ...select }: SelectProps) {
  return (
    <Field label={label} error={error} required={required ?? false}>
      {(a11y) => (
        <select {...select} {...a11y} onChange={(e) => onValue(e.target.value)}>
          {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

interface ConfirmProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  danger?: boolean;
  busy?: boolean;
  /** The confirm button stays disabled until this holds (e.g. a reason was typed). */
  ready?: boolean;
}

/** A modal confirmation: focus moves in, Escape or Cancel closes, focus returns where it was. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  danger = false,
  busy = false,
  ready = true,
}: ConfirmProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const { t } = useTranslation();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), onCancel())}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready && !busy) onConfirm();
        }}
      >
        <h2 id={titleId}>{title}</h2>
        {children}
        <div className="actions">
          <button type="submit" className={danger ? 'danger' : undefined} disabled={busy || !ready}>
            {confirmLabel}
          </button>
          <button type="button" className="secondary" onClick={onCancel} disabled={busy}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
