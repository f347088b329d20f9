// Refused credentials (bad tokens, unknown sessions) are counted per client IP by authenticate. Once
// an IP is over the limit, a request from it that presents a credential is answered 429 before any
// signature check, call to identity or refusal: guessing and floods cost the gateway next to nothing.
// Requests without a credential go on (anonymous callers have their own rate limit).
//
// The verdict is asked once per request, as late as that rule allows: authenticate asks before
// anything that costs; when the credential is served from memory nothing costs, and the rate limit
// asks in the same Redis round trip as it spends the caller's point (limits/refused-then-spend.ts).
import type { Request, RequestHandler, Response } from 'express';
import { answerCooling, clientKey } from '../limits/index.ts';
import type { CallerRateLimit } from '../limits/index.ts';
import { deferRefusedCheck, takeRefusedCheck } from '../server/index.ts';

export function throttleRefusedCredentials(): RequestHandler {
  return (req, res, next) => {
    if (req.headers.authorization !== undefined || req.headers.cookie !== undefined) deferRefusedCheck(res);
    next();
  };
}

/** Asks the verdict if it is still to be asked; true when the request was answered 429 (cooling down). */
export async function coolingDown(req: Request, res: Response, refused: CallerRateLimit): Promise<boolean> {
  if (!takeRefusedCheck(res)) return false;
  const cooling = await refused.blocked(clientKey(req));
  if (cooling === undefined) return false;
  answerCooling(res, cooling);
  return true;
}
