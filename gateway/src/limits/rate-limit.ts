// The per-caller request budget as middleware; the counting is limiter.ts's (in Redis, shared by replicas).
import type { Request, RequestHandler, Response } from 'express';
import { callerOf, sendError, takeRefusedCheck } from '../server/index.ts';
import type { CallerRateLimit } from './limiter.ts';
import { refusedThenSpend } from './refused-then-spend.ts';

/** The key of a per-client-IP count: the client's address as seen through trusted proxies only. */
export function clientKey(req: Request): string {
  return `ip:${req.ip}`;
}

/** 429 for a client IP over the refused-credential limit (credentials/refused.ts). */
export function answerCooling(res: Response, seconds: number): void {
  sendError(res, 'TOO_MANY_REQUESTS', `too many rejected credentials, retry in ${seconds} s`, { 'retry-after': String(seconds) });
}

/**
 * After authenticate: spends one request of the caller's budget (user or OAuth client, else client IP),
 * asking the refused-credential verdict in the same round trip when it is still to be asked.
 */
export function rateLimit(limit: CallerRateLimit, refused: CallerRateLimit): RequestHandler {
  return async (req, res, next) => {
    const caller = callerOf(res);
    const key = caller ? `${caller.principal.clientId ?? ''}:${caller.principal.userId}` : clientKey(req);
    const { cooling, wait } = takeRefusedCheck(res)
      ? await refusedThenSpend(refused, clientKey(req), limit, key)
      : { cooling: undefined, wait: await limit.check(key) };
    if (cooling !== undefined) return answerCooling(res, cooling);
    if (wait !== undefined)
      return sendError(res, 'TOO_MANY_REQUESTS', `too many requests, retry in ${wait} s`, { 'retry-after': String(wait) });
    next();
  };
}

/**
 * After rateLimit, on routes for agents: one budget per OAuth client across every user it acts for
 * (an agent approved by many people is still one agent). Calls without a client go on.
 */
export function rateLimitPerClient(limit: CallerRateLimit): RequestHandler {
  return async (_req, res, next) => {
    const clientId = callerOf(res)?.principal.clientId;
    const wait = clientId ? await limit.check(`client:${clientId}`) : undefined;
    if (wait !== undefined)
      return sendError(res, 'TOO_MANY_REQUESTS', `this client made too many requests, retry in ${wait} s`, { 'retry-after': String(wait) });
    next();
  };
}
