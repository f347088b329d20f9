// Express plumbing for the route table (app.ts).
import type { RequestHandler } from 'express';

/**
 * A route's steps as one Express layer: the router matches the prefix and strips it once per request,
 * not once per step. Each step behaves as it would as a layer of its own: next(err) goes to the error
 * handler, and so does a thrown error or a rejected promise (Express 5's rule).
 */
export function inSequence(steps: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let at = 0;
    const step = (err?: unknown): void => {
      if (err) return next(err);
      const handler = steps[at++];
      if (!handler) return next();
      try {
        const done: unknown = handler(req, res, step);
        if (done instanceof Promise) done.catch((e: unknown) => next(e ?? new Error('rejected')));
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
