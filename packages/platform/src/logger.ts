// pino JSON logs. Every line carries the trace id (from OpenTelemetry) and the request and tenant ids
// (from the request context). Credentials and personal data are redacted by path as a second line of
// defence; the first is never putting them into a log call at all.
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { currentContext } from './context.ts';

export type { Logger };

const REDACT = [
  'authorization',
  'cookie',
  'token',
  'otp',
  'email',
  'password',
  'secret',
  '*.authorization',
  '*.cookie',
  '*.token',
  '*.otp',
  '*.email',
  '*.password',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(service: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    messageKey: 'msg',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT, censor: '[redacted]' },
    mixin() {
      const ctx = currentContext();
      const span = trace.getActiveSpan()?.spanContext();
      return {
        ...(span && span.traceFlags !== undefined ? { trace_id: span.traceId, span_id: span.spanId } : {}),
        ...(ctx.requestId ? { request_id: ctx.requestId } : {}),
        ...(ctx.tenantId ? { tenant_id: ctx.tenantId } : {}),
      };
    },
  });
}
