// What an MCP agent keeps for the official SDK's OAuth client support, in memory: the client the
// hospital registered for it, the PKCE verifier between the redirect and the callback, and the tokens.
// The SDK does the rest: it reads the server's 401, the protected-resource metadata and the
// authorization server's metadata, builds the request (PKCE S256, `resource`, the scope asked for) and
// exchanges the code. Used by examples/mcp-agent.ts and by the tests.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export class PreRegisteredAgent implements OAuthClientProvider {
  /** Every authorization request the SDK asked the user to open, newest last. */
  readonly authorizationUrls: URL[] = [];
  readonly redirectUrl: string;
  private readonly clientId: string;
  private readonly onAuthorize: ((url: URL) => void) | undefined;
  private saved?: OAuthTokens;
  private verifier = '';

  constructor(clientId: string, redirectUrl: string, onAuthorize?: (url: URL) => void) {
    this.clientId = clientId;
    this.redirectUrl = redirectUrl;
    this.onAuthorize = onAuthorize;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'MCP agent', redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return { client_id: this.clientId };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    this.onAuthorize?.(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
