// The MCP server of one request: the tools registered with the official SDK, each call made through the
// records procedures for the request's principal with the tool named in its audit rows, and every
// failure answered as MCP's tool error (`isError: true`) with a message an agent can act on.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { log, publicError } from '../server/index.ts';
import type { Context } from '../server/index.ts';
import type { CallerFor } from './calls.ts';
import { RECORD_TEXT_NOTE, TOOLS } from './tools.ts';
import type { Tool } from './tools.ts';
import { ToolInputError } from './tools-error.ts';

export const SERVER_INFO = { name: 'simrs-records', version: '1.0.0' };

const INSTRUCTIONS =
  "SIMRS clinical records of one hospital, read and written on behalf of the person who approved this agent, with that person's permissions. " +
  'Every call is audited with this client, that person, the tool and the patient. ' +
  RECORD_TEXT_NOTE;

/** What to do next, by the procedures' refusal. */
const NEXT_STEP: Record<string, string> = {
  BAD_REQUEST: 'Correct the arguments and call again.',
  UNAUTHORIZED: 'The authorization is no longer valid: authorize again.',
  FORBIDDEN: 'Not allowed for the person who approved this agent: do not retry; tell the user.',
  NOT_FOUND: 'Nothing with that id in this hospital: find it again (find_patients, clinic_worklist).',
  CONFLICT: 'The record is not in a state that allows this: read it again (visit_details) before deciding.',
  SERVICE_UNAVAILABLE: 'The records are briefly unavailable: retry in a few seconds.',
  TOO_MANY_REQUESTS: 'Slow down and retry shortly.',
};

function toolError(err: unknown, tool: string): CallToolResult {
  let text: string;
  if (err instanceof ToolInputError) text = `${err.message}. ${NEXT_STEP.BAD_REQUEST}`;
  else if (err instanceof TRPCError) {
    const status = getHTTPStatusCodeFromError(err);
    if (status >= 500 && status !== 503) log.error({ err: err.cause ?? err, tool }, 'tool failed');
    text = `${err.code}: ${publicError(err, status).message}. ${NEXT_STEP[err.code] ?? ''}`.trim();
  } else {
    log.error({ err, tool }, 'tool failed');
    text = 'INTERNAL_SERVER_ERROR: internal error. Retry later; if it persists, tell the user.';
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

function answer(data: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data as Record<string, unknown> };
}

/** The request's context with the tool named on the actor its audit rows record. */
function asTool(ctx: Context, tool: Tool): Context {
  if (!ctx.scope) return ctx;
  return { ...ctx, scope: { ...ctx.scope, actor: { ...ctx.scope.actor, tool: tool.name } } };
}

export function mcpServerFor(ctx: Context, callerFor: CallerFor): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { tools: { listChanged: false } } });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: {
          readOnlyHint: tool.scope === 'simrs:read',
          destructiveHint: false,
          idempotentHint: tool.scope === 'simrs:read',
          openWorldHint: false,
        },
      },
      async (input: Record<string, unknown>) => {
        try {
          return answer(await tool.run(callerFor(asTool(ctx, tool)), input));
        } catch (err) {
          return toolError(err, tool.name);
        }
      },
    );
  }
  return server;
}
