// A route's steps as one layer behave as layers of their own: in order, each may answer or pass on,
// and an error (next(err), a throw, a rejected promise) reaches the error handler, the rest skipped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import express from 'express';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import request from 'supertest';
import { inSequence } from './sequence.ts';

function appWith(steps: RequestHandler[]) {
  const seen: string[] = [];
  const app = express();
  const mark =
    (name: string): RequestHandler =>
    (req, _res, next) => {
      seen.push(`${name} ${req.baseUrl} ${req.url}`);
      next();
    };
  app.use('/api', inSequence([mark('first'), ...steps, mark('last')]));
  app.use((_req, res) => void res.status(404).send('fell through'));
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => void res.status(500).send(`error: ${err.message}`);
  app.use(onError);
  return { app, seen };
}

test('steps run in order under the mount path; an answer ends the sequence', async () => {
  const { app, seen } = appWith([(_req, res) => void res.send('answered')]);
  const res = await request(app).get('/api/x?y=1');
  assert.equal(res.text, 'answered');
  assert.deepEqual(seen, ['first /api /x?y=1']);
});

test('when every step passes on, the next layer answers', async () => {
  const { app, seen } = appWith([]);
  assert.equal((await request(app).get('/api/x')).text, 'fell through');
  assert.equal(seen.length, 2);
});

test('next(err), a throw and a rejected promise all reach the error handler, skipping the rest', async () => {
  const failing: RequestHandler[] = [
    (_req, _res, next) => next(new Error('passed')),
    () => {
      throw new Error('thrown');
    },
    async () => {
      await Promise.resolve();
      throw new Error('rejected');
    },
  ];
  for (const step of failing) {
    const { app, seen } = appWith([step]);
    const res = await request(app).get('/api/x');
    assert.equal(res.status, 500);
    assert.match(res.text, /^error: (passed|thrown|rejected)$/);
    assert.equal(seen.length, 1, 'the last step did not run');
  }
});
