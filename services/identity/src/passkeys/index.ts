// Passkeys: Better Auth's passkey plugin as identity configures it, and the authentication options
// completed into the form standard WebAuthn clients accept.
export { passkeyPlugin } from './passkeys.ts';
export { shapeAuthenticationOptions } from './webauthn.ts';
