// Passkey authentication options in standard form.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shapeAuthenticationOptions } from './webauthn.ts';

describe('passkey authentication options', () => {
  test('every meaningful field is present, in standard form', () => {
    const shaped = shapeAuthenticationOptions(
      { challenge: 'abc', rpId: 'simrs.example.org', timeout: 60000, userVerification: 'preferred' },
      { id: 'simrs.example.org', name: 'SIMRS' },
    );
    assert.deepEqual(shaped, {
      challenge: 'abc',
      timeout: 60000,
      rpId: 'simrs.example.org',
      rp: { name: 'SIMRS', id: 'simrs.example.org' },
      allowCredentials: [],
      userVerification: 'required',
      extensions: {},
    });
  });

  test('transports stored empty do not become [""]', () => {
    const shaped = shapeAuthenticationOptions(
      {
        challenge: 'abc',
        allowCredentials: [
          { id: 'cred1', transports: [''] },
          { id: 'cred2', transports: ['internal', 'hybrid'] },
        ],
      },
      { id: 'localhost', name: 'SIMRS' },
    );
    assert.deepEqual(shaped.allowCredentials, [
      { id: 'cred1', type: 'public-key', transports: [] },
      { id: 'cred2', type: 'public-key', transports: ['internal', 'hybrid'] },
    ]);
  });
});
