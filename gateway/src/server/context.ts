// What the gateway knows about a request as it passes through the middleware: its id (and, once the
// caller is known, its tenant) in the platform's request context, which logs and spans read; the
// caller and whether the gateway answered it itself on res.locals, under names typed here only.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { requestContext } from '@simrs/platform/context';
import type { Principal } from '@simrs/contracts/principal';
import { REQUEST_ID_HEADER } from '@simrs/contracts/principal';
import { inTraceContext } from './tracing.ts';

/** The caller of an API request, resolved from its credential by the authenticate middleware. */
export interface Caller {
  principal: Principal;
  /** The signed principal forwarded to records, minted once per cached credential (then given back as is). */
  signPrincipal(): string | Promise<string>;
}

interface GatewayLocals {
  caller?: Caller;
  answeredByGateway?: boolean;
  refusedCheckPending?: boolean;
}

const locals = (res: Response) => res.locals as GatewayLocals;

export function setCaller(res: Response, caller: Caller): void {
  locals(res).caller = caller;
  requestContext.getStore()!.tenantId = caller.principal.tenantId;
}

/** Undefined for an anonymous request (or before authenticate ran). */
export function callerOf(res: Response): Caller | undefined {
  return locals(res).caller;
}

/** The request presents a credential: its client IP's refused-credential verdict is still to be asked. */
export function deferRefusedCheck(res: Response): void {
  locals(res).refusedCheckPending = true;
}

/** True (once) when the refused-credential verdict is still to be asked: whoever gets true asks it. */
export function takeRefusedCheck(res: Response): boolean {
  const pending = locals(res).refusedCheckPending === true;
  locals(res).refusedCheckPending = false;
  return pending;
}

/** Set when the gateway refused or failed a request itself, so that its path is not a route label. */
export function markAnsweredByGateway(res: Response): void {
  locals(res).answeredByGateway = true;
}

export function answeredByGateway(res: Response): boolean {
  return locals(res).answeredByGateway === true;
}

const REQUEST_ID = /^[\w.-]{8,64}$/;

/**
 * First middleware: keeps a well-formed X-Request-Id or assigns one, and runs the rest in its context
 * and the request's trace context.
 */
export function withRequestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.headers[REQUEST_ID_HEADER];
  const requestId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.headers[REQUEST_ID_HEADER] = requestId;
  res.setHeader(REQUEST_ID_HEADER, requestId);
  requestContext.run({ requestId }, inTraceContext, req, res, next);
}
