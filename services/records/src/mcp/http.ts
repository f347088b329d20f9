// The MCP server's HTTP endpoint (Streamable HTTP, stateless): each POST carries its own bearer-derived
// principal, so no protocol session is kept between requests and any records replica answers any of
// them. A request without a principal gets 401 (the gateway adds the challenge naming the resource
// metadata); a tool call the token's scopes do not cover gets 403 `insufficient_scope` naming the scopes
// to ask for (step-up); everything else goes to the SDK's transport and the tools.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import { defaultMcpResource, resourceMetadataUrl } from '@simrs/contracts/oauth';
import type { Principal } from '@simrs/contracts/principal';
import { BodyTooLarge, readBody, sendError } from '../server/index.ts';
import type { Context } from '../server/index.ts';
import type { CallerFor } from './calls.ts';
import { mcpServerFor } from './protocol.ts';
import { toolByName } from './tools.ts';
import type { Tool } from './tools.ts';

export interface McpDeps {
  /** The public origin; unset, the scheme and host the gateway forwarded. */
  publicUrl?: string | undefined;
  prefix: string;
  /** The MCP server's resource identifier; unset, the default one under the public origin. */
  mcpResource?: string | undefined;
  maxBodyBytes: number;
  createContext(req: IncomingMessage): Promise<Context>;
  callerFor: CallerFor;
}

/** JSON-RPC's own error shape, for a body the protocol cannot read (MCP clients read JSON-RPC errors). */
function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function originOf(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const first = (h: string | string[] | undefined) =>
    String(Array.isArray(h) ? h[0] : (h ?? ''))
      .split(',')[0]!
      .trim();
  const proto = first(req.headers['x-forwarded-proto']) === 'https' ? 'https' : 'http';
  const host = first(req.headers['x-forwarded-host']) || first(req.headers.host);
  return /^[\w.-]+(:\d+)?$/.test(host) ? `${proto}://${host}` : 'http://localhost';
}

/** The first tool called in the message(s) whose scope the principal lacks, if any. */
function toolNeedingScope(body: unknown, principal: Principal): Tool | undefined {
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages as Array<{ method?: unknown; params?: { name?: unknown } }>) {
    if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    const tool = toolByName(m.params.name);
    if (tool && !principal.scopes.includes(tool.scope)) return tool;
  }
  return undefined;
}

export function createMcpHandler(deps: McpDeps) {
  const path = `${deps.prefix}/mcp`;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') {
      // Stateless: no stream to open with GET, no session to end with DELETE (the transport's rule).
      return sendError(res, 'METHOD_NOT_SUPPORTED', 'this MCP server is stateless: send each request with POST', path, { allow: 'POST' });
    }
    const ctx = await deps.createContext(req);
    if (!ctx.principal) return sendError(res, 'UNAUTHORIZED', 'an access token issued for this MCP server is needed', path);
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req, deps.maxBodyBytes));
    } catch (err) {
      if (err instanceof BodyTooLarge) return jsonRpcError(res, 413, -32600, `request body is larger than ${deps.maxBodyBytes} bytes`);
      return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
    }
    const needy = toolNeedingScope(body, ctx.principal);
    if (needy) {
      const metadata = resourceMetadataUrl(deps.mcpResource ?? defaultMcpResource(originOf(req, deps.publicUrl), deps.prefix));
      const scope = `${SCOPE_READ} ${SCOPE_WRITE}`;
      return sendError(res, 'FORBIDDEN', `${needy.name} needs the ${needy.scope} scope: authorize again asking for "${scope}"`, path, {
        'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}", error_description="${needy.name} needs ${needy.scope}"`,
      });
    }
    const server = mcpServerFor(ctx, deps.callerFor);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}
