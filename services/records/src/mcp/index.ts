// The MCP server for AI agents (Streamable HTTP under <INTEGRATION_PREFIX>/mcp), mounted by server/server.ts.
export type { CallerFor, RecordsCalls } from './calls.ts';
export { createMcpHandler } from './http.ts';
export type { McpDeps } from './http.ts';
export { SERVER_INFO } from './protocol.ts';
export { TOOLS } from './tools.ts';
