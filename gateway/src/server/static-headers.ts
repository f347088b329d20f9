// helmet's security headers, asked of helmet once at start. With the gateway's options (no directive
// computed per request, such as a CSP nonce) they are the same on every response, but helmet builds
// them again on every request: the CSP string joined from its directives, a dozen middleware called in
// turn. Here the answer helmet gave once is replayed: same headers, same order, same values.
import type { Request, RequestHandler, Response } from 'express';

export function staticHeaders(middleware: RequestHandler): RequestHandler {
  const set: Array<[string, string | number | readonly string[]]> = [];
  const removed: string[] = [];
  const probe = {
    setHeader: (name: string, value: string | number | readonly string[]) => void set.push([name, value]),
    removeHeader: (name: string) => void removed.push(name),
  };
  let finished = false;
  void middleware({} as Request, probe as unknown as Response, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    finished = true;
  });
  // A middleware that answers, waits or reads the request cannot be replayed.
  if (!finished) throw new Error('staticHeaders: the middleware did not call next() at once');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
