// The integration interface's description: the OpenAPI 3.1 document at <prefix>/openapi.json, generated
// by trpc-to-openapi from the procedures' metadata, and a self-contained docs page at <prefix>/docs
// (rendered on the server: no CDN, no script). rest.ts serves the operations it lists; errors use the
// seed's envelope there too, written by http-error.ts.
import { generateOpenApiDocument } from 'trpc-to-openapi';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { sessionCookieName } from '@simrs/contracts/cookie';
import { appRouter } from './router.ts';

const ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'code', 'data'],
      properties: {
        message: { type: 'string' },
        code: { type: 'integer', description: 'JSON-RPC style code (e.g. -32600 bad request)' },
        data: {
          type: 'object',
          required: ['code', 'httpStatus', 'path'],
          properties: {
            code: { type: 'string', examples: ['BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'] },
            httpStatus: { type: 'integer' },
            path: { type: 'string', description: 'The procedure, e.g. pasien.list' },
            fieldErrors: {
              type: 'object',
              additionalProperties: { type: 'array', items: { type: 'string' } },
              description: 'Per-field messages for bad input',
            },
          },
        },
      },
    },
  },
};

/**
 * `publicUrl` is the site's (PUBLIC_URL): over https the session cookie carries the `__Secure-` prefix.
 * Without it the document names the cookie of a site served over http, and says so.
 */
export function openApiDocument(prefix: string, publicUrl = 'http://localhost'): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'SIMRS records API',
    version: '1.0.0',
    description:
      "Patient records (pasien) of the caller's hospital, and their audit trail. Every call is scoped to the tenant of the credential; queries need the simrs:read scope, mutations simrs:write, and the role must allow the procedure. The same procedures are also served as tRPC under /trpc.",
    baseUrl: prefix,
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'OAuth 2.0 access token (at+jwt) for the SIMRS API resource',
      },
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: sessionCookieName(publicUrl),
        description: `Session cookie from passwordless sign-in; counts only from allow-listed origins. Its name is ${sessionCookieName('http:')} on a site served over http and ${sessionCookieName('https:')} over https (the __Secure- prefix).`,
      },
    },
  });
  // trpc-to-openapi describes errors in its own shape; ours is the seed's envelope, everywhere.
  const schemas = ((doc.components ??= {}).schemas ??= {});
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.ErrorEnvelope = ENVELOPE_SCHEMA as (typeof schemas)[string];
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, { responses?: Record<string, { description: string; content?: unknown }> }>)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (status !== '200') response.content = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };
      }
    }
  }
  return doc;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A plain, accessible page listing every operation with its parameters, body and responses. */
export function docsPage(doc: OpenAPIObject, prefix: string): string {
  const ops: string[] = [];
  const nav: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(item as Record<string, Record<string, unknown>>)) {
      const op = raw as {
        operationId?: string;
        summary?: string;
        description?: string;
        parameters?: { name: string; in: string; required?: boolean; schema?: unknown; description?: string }[];
        requestBody?: { content?: Record<string, { schema?: unknown }> };
        responses?: Record<string, { description?: string }>;
        security?: unknown[];
      };
      const id = `op-${op.operationId ?? `${method}-${path}`}`.replace(/[^\w-]/g, '-');
      nav.push(
        `<li><a href="#${id}"><code>${method.toUpperCase()} ${escapeHtml(prefix + path)}</code> ${escapeHtml(op.summary ?? '')}</a></li>`,
      );
      const params = (op.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(JSON.stringify(p.schema))}</code></td></tr>`,
        )
        .join('');
      const body = op.requestBody?.content?.['application/json']?.schema;
      const responses = Object.entries(op.responses ?? {})
        .map(([s, r]) => `<li><strong>${s}</strong> ${escapeHtml(r.description ?? '')}</li>`)
        .join('');
      ops.push(`<section id="${id}" aria-labelledby="${id}-h">
<h2 id="${id}-h"><code>${method.toUpperCase()} ${escapeHtml(prefix + path)}</code></h2>
<p>${escapeHtml(op.summary ?? '')}${op.description ? ` — ${escapeHtml(op.description)}` : ''}</p>
<p>Procedure <code>${escapeHtml((op.operationId ?? '').replace(/-/g, '.'))}</code>; ${op.security && op.security.length ? 'needs a credential (bearer token or session cookie)' : 'public'}.</p>
${params ? `<table><caption>Parameters</caption><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">required</th><th scope="col">schema</th></tr></thead><tbody>${params}</tbody></table>` : ''}
${body ? `<details><summary>Request body (application/json)</summary><pre>${escapeHtml(JSON.stringify(body, null, 2))}</pre></details>` : ''}
<h3>Responses</h3><ul>${responses}</ul>
</section>`);
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} — docs</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f4f4f4;padding:.75rem;overflow:auto}table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}section{border-top:1px solid #ddd;margin-top:1.5rem}a{color:#0645ad}</style>
</head><body>
<header><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${escapeHtml(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="${escapeHtml(prefix)}/openapi.json">OpenAPI 3.1 document</a>. Errors always come as <code>{"error":{"message","code","data":{"code","httpStatus","path","fieldErrors?"}}}</code>.</p>
<p>FHIR R4: the same patients as <code>Patient</code> resources under <code>${escapeHtml(prefix)}/fhir</code>; what it supports is its <a href="${escapeHtml(prefix)}/fhir/metadata">CapabilityStatement</a>, SMART App Launch discovery is <a href="${escapeHtml(prefix)}/fhir/.well-known/smart-configuration">.well-known/smart-configuration</a>.</p></header>
<nav aria-label="Operations"><h2>Operations</h2><ul>${nav.join('')}</ul></nav>
<main>${ops.join('\n')}</main>
</body></html>`;
}
