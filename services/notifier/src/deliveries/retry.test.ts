import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs, classify } from './retry.ts';

const policy = { maxAttempts: 8, baseMs: 1_000, maxMs: 60_000 };

test('backoff doubles per attempt, with jitter between half and all of it, capped', () => {
  assert.equal(
    backoffMs(1, policy, () => 0),
    500,
  );
  assert.equal(
    backoffMs(1, policy, () => 1),
    1_000,
  );
  assert.equal(
    backoffMs(3, policy, () => 0),
    2_000,
  );
  assert.equal(
    backoffMs(3, policy, () => 1),
    4_000,
  );
  assert.equal(
    backoffMs(20, policy, () => 1),
    60_000,
  );
  assert.equal(
    backoffMs(20, policy, () => 0),
    30_000,
  );
  const samples = Array.from({ length: 200 }, () => backoffMs(4, policy));
  assert.ok(samples.every((ms) => ms >= 4_000 && ms <= 8_000));
  assert.ok(new Set(samples).size > 50, 'jittered');
});

test('a 5xx about the message is permanent; everything else is retried', () => {
  const rcpt = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <a@b.example>: no such user"), {
    code: 'EENVELOPE',
    responseCode: 550,
    response: '550 5.1.1 <a@b.example>: no such user',
  });
  assert.deepEqual(classify(rcpt), { permanent: true, summary: 'EENVELOPE: 550 5.1.1 <address>: no such user' });
  assert.equal(classify({ code: 'EMESSAGE', responseCode: 554, response: '554 spam' }).permanent, true);
  assert.equal(classify({ code: 'EMESSAGE', responseCode: 451, response: '451 try later' }).permanent, false);
  assert.equal(classify({ code: 'EENVELOPE', responseCode: 452, response: '452 mailbox full' }).permanent, false);
  // Wrong credentials are the operator's problem, not the message's.
  assert.equal(classify({ code: 'EAUTH', responseCode: 535, response: '535 auth failed' }).permanent, false);
  assert.deepEqual(classify(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), { code: 'ESOCKET' })), {
    permanent: false,
    summary: 'ESOCKET: connect ECONNREFUSED 127.0.0.1:2525',
  });
  assert.equal(classify('weird').permanent, false);
  assert.ok(classify({ message: 'x'.repeat(2_000) }).summary.length <= 500);
});
