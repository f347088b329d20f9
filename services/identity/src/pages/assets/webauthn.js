/* global window, navigator, atob, btoa */
// WebAuthn JSON <-> browser objects. Uses the browser's own parsers where it has them.
const fromB64u = (s) => {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
};
const toB64u = (buf) =>
  btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const PKC = () => window.PublicKeyCredential;

export function supported() {
  return typeof PKC() === 'function' && !!navigator.credentials;
}

export async function conditionalSupported() {
  return supported() && typeof PKC().isConditionalMediationAvailable === 'function' && (await PKC().isConditionalMediationAvailable());
}

export function requestOptions(json) {
  const options = {
    challenge: json.challenge,
    timeout: json.timeout,
    rpId: json.rpId,
    allowCredentials: json.allowCredentials ?? [],
    userVerification: json.userVerification,
    extensions: json.extensions ?? {},
  };
  if (typeof PKC().parseRequestOptionsFromJSON === 'function') return PKC().parseRequestOptionsFromJSON(options);
  return {
    ...options,
    challenge: fromB64u(options.challenge),
    allowCredentials: options.allowCredentials.map((c) => ({ ...c, id: fromB64u(c.id) })),
  };
}

export function creationOptions(json) {
  if (typeof PKC().parseCreationOptionsFromJSON === 'function') return PKC().parseCreationOptionsFromJSON(json);
  return {
    ...json,
    challenge: fromB64u(json.challenge),
    user: { ...json.user, id: fromB64u(json.user.id) },
    excludeCredentials: (json.excludeCredentials ?? []).map((c) => ({ ...c, id: fromB64u(c.id) })),
  };
}

/** The credential as the server expects it (SimpleWebAuthn's JSON shape, base64url fields). */
export function credentialJSON(cred) {
  if (typeof cred.toJSON === 'function') return cred.toJSON();
  const r = cred.response;
  const response = { clientDataJSON: toB64u(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toB64u(r.attestationObject);
    response.transports = typeof r.getTransports === 'function' ? r.getTransports() : [];
  } else {
    response.authenticatorData = toB64u(r.authenticatorData);
    response.signature = toB64u(r.signature);
    if (r.userHandle) response.userHandle = toB64u(r.userHandle);
  }
  return {
    id: cred.id,
    rawId: toB64u(cred.rawId),
    type: cred.type,
    response,
    authenticatorAttachment: cred.authenticatorAttachment ?? undefined,
    clientExtensionResults: cred.getClientExtensionResults(),
  };
}
