// SendEmail input, checked with zod before anything is stored. Every failure becomes INVALID_ARGUMENT
// with a message naming the field (errors.ts); the message never repeats the rejected value, since
// it may be an address or an OTP.
import { z } from 'zod';
import type { SendEmailRequest } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { Template } from '@simrs/proto/gen/simrs/notifier/v1/notifier_pb';
import { DEFAULT_EXPIRES_MINUTES, PARAMETERS, SECURITY_EVENTS, isAddress } from '../mail/index.ts';
import type { Locale, ParamSpec, TemplateName } from '../mail/index.ts';
import { InvalidArgument } from './errors.ts';

export const MAX_PARAMETERS = 50;
export const MAX_PARAMETER_BYTES = 8 * 1024;

const TEMPLATE_BY_ENUM: Record<number, TemplateName> = {
  [Template.SIGN_IN_OTP]: 'sign_in_otp',
  [Template.MAGIC_LINK]: 'magic_link',
  [Template.INVITATION]: 'invitation',
  [Template.SECURITY_NOTICE]: 'security_notice',
};

export interface ValidMessage {
  idempotencyKey: string;
  recipient: string;
  template: TemplateName;
  locale: Locale;
  parameters: Record<string, string>;
  /** OTPs and magic links are useless after they expire: past this instant they are not sent. */
  validUntil: Date | null;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const isUrl = (value: string): boolean => {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
};
const isMinutes = (value: string) => /^\d{1,4}$/.test(value) && Number(value) >= 1 && Number(value) <= 1440;
const isTimestamp = (value: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));

/** Each kind of parameter: the test its value must pass, and what to say when it does not. */
const KIND_CHECKS = new Map<ParamSpec['kind'], [test: (value: string) => boolean, problem: string]>([
  ['text', [(value) => value.trim() !== '', 'is blank']],
  ['digits', [(value) => /^\d{4,10}$/.test(value), 'must be 4 to 10 digits']],
  ['minutes', [isMinutes, 'must be a whole number of minutes from 1 to 1440']],
  ['url', [isUrl, 'must be an absolute http or https URL']],
  ['event', [(value) => (SECURITY_EVENTS as readonly string[]).includes(value), `must be one of ${SECURITY_EVENTS.join(', ')}`]],
  ['timestamp', [isTimestamp, 'must be an RFC 3339 timestamp such as 2026-01-31T08:30:00+07:00']],
  ['time_zone', [isTimeZone, 'must be an IANA time zone such as Asia/Jakarta']],
]);

/** Why `value` does not fit `spec`, or undefined when it does. */
function checkParameter(spec: ParamSpec, value: string): string | undefined {
  if (value.length > spec.max) return `is longer than ${spec.max} characters`;
  if (CONTROL.test(value)) return 'contains control characters';
  const [test, problem] = KIND_CHECKS.get(spec.kind)!;
  return test(value) ? undefined : problem;
}

const schema = z
  .object({
    idempotency_key: z
      .string()
      .min(1, { message: 'is required', abort: true })
      .max(200, 'is longer than 200 characters')
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    recipient: z
      .string()
      .trim()
      .min(1, { message: 'is required', abort: true })
      .refine(isAddress, 'is not a valid e-mail address (one plain address such as name@example.org)'),
    template: z
      .number()
      .refine((t) => t !== Template.UNSPECIFIED, { message: 'is required', abort: true })
      .refine((t) => t in TEMPLATE_BY_ENUM, 'is not a known template')
      .transform((t) => TEMPLATE_BY_ENUM[t]!),
    locale: z
      .string()
      .transform((l) => l.trim().toLowerCase() || 'id')
      .refine((l) => /^(id|en)(?:[-_][a-z0-9]{2,8})*$/.test(l), 'must be "id" (Bahasa Indonesia) or "en"')
      .transform((l) => l.slice(0, 2) as Locale),
    parameters: z
      .record(z.string(), z.string())
      .refine((p) => Object.keys(p).length <= MAX_PARAMETERS, `has more than ${MAX_PARAMETERS} entries`)
      .refine(
        (p) => Object.entries(p).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) <= MAX_PARAMETER_BYTES,
        `are larger than ${MAX_PARAMETER_BYTES} bytes in all`,
      ),
  })
  .superRefine((req, ctx) => {
    const specs = PARAMETERS[req.template];
    if (!specs) return;
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.required && !Object.hasOwn(req.parameters, name))
        ctx.addIssue({ code: 'custom', path: ['parameters', name], message: `is required for template ${req.template}` });
    }
    for (const [name, value] of Object.entries(req.parameters)) {
      // The names come from the caller: only the template's own parameters count (not `constructor`).
      const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
      if (!spec) {
        ctx.addIssue({
          code: 'custom',
          path: ['parameters', name],
          message: `is not a parameter of template ${req.template} (known: ${Object.keys(specs).join(', ')})`,
        });
        continue;
      }
      const problem = checkParameter(spec, value);
      if (problem) ctx.addIssue({ code: 'custom', path: ['parameters', name], message: problem });
    }
  });

function describe(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const [field, ...rest] = issue.path.map(String);
      const name = field === 'parameters' && rest.length ? `parameter "${rest.join('.')}"` : (field ?? 'request');
      return `${name} ${issue.message}`;
    })
    .join('; ');
}

/** The stored form of a SendEmail request, or InvalidArgument naming every problem found. */
export function validateSendEmail(
  request: Pick<SendEmailRequest, 'idempotencyKey' | 'recipient' | 'template' | 'locale' | 'parameters'>,
  now = new Date(),
): ValidMessage {
  const parsed = schema.safeParse({
    idempotency_key: request.idempotencyKey,
    recipient: request.recipient,
    template: request.template,
    locale: request.locale,
    parameters: request.parameters,
  });
  if (!parsed.success) throw new InvalidArgument(describe(parsed.error));
  const msg = parsed.data;
  const expiring = msg.template === 'sign_in_otp' || msg.template === 'magic_link';
  const minutes = Number(msg.parameters.expires_minutes ?? DEFAULT_EXPIRES_MINUTES);
  return {
    idempotencyKey: msg.idempotency_key,
    recipient: msg.recipient,
    template: msg.template,
    locale: msg.locale,
    parameters: msg.parameters,
    validUntil: expiring ? new Date(now.getTime() + minutes * 60_000) : null,
  };
}
