// Refused credentials (bad tokens, unknown sessions) are counted per client IP by authenticate. Once
// an IP is over the limit, a request from it that presents a credential is answered 429 here, before
// any signature check or call to identity: guessing and floods cost the gateway next to nothing.
// Requests without a credential go on (anonymous callers have their own rate limit).
import type { RequestHandler } from 'express';
import { clientKey } from '../limits/index.ts';
import type { CallerRateLimit } from '../limits/index.ts';
import { sendError } from '../server/index.ts';

export function throttleRefusedCredentials(refused: CallerRateLimit): RequestHandler {
  return async (req, res, next) => {
    const presentsCredential = req.headers.authorization !== undefined || req.headers.cookie !== undefined;
    const cooling = presentsCredential ? await refused.blocked(clientKey(req)) : undefined;
    if (cooling !== undefined) {
      return sendError(res, 'TOO_MANY_REQUESTS', `too many rejected credentials, retry in ${cooling} s`, {
        'retry-after': String(cooling),
      });
    }
    next();
  };
}
