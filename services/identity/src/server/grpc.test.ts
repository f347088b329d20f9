// Who may call the admin gRPC methods.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminAuthorizer, isLoopback } from './grpc.ts';

describe('admin authorization', () => {
  const call = (peer: string, authorization?: string) =>
    ({ getPeer: () => peer, metadata: { get: (k: string) => (k === 'authorization' && authorization ? [authorization] : []) } }) as never;

  test('without a token: loopback only', () => {
    const authorize = adminAuthorizer(undefined);
    for (const peer of ['127.0.0.1:5000', '::1:5000', '[::1]:5000', '::ffff:127.0.0.1:5000']) {
      assert.ok(isLoopback(peer), peer);
      assert.doesNotThrow(() => authorize(call(peer)));
    }
    assert.throws(() => authorize(call('10.1.2.3:5000')), { code: 7 });
  });

  test('with a token: the token, from anywhere', () => {
    const authorize = adminAuthorizer('the-admin-token-which-is-long-enough-xx');
    assert.doesNotThrow(() => authorize(call('10.1.2.3:5000', 'Bearer the-admin-token-which-is-long-enough-xx')));
    assert.throws(() => authorize(call('127.0.0.1:5000')), { code: 16 });
    assert.throws(() => authorize(call('127.0.0.1:5000', 'Bearer wrong')), { code: 16 });
  });
});
