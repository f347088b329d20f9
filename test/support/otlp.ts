// An OTLP/HTTP (JSON) trace receiver inside the test: services export to it with
// OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_PROTOCOL=http/json.
import { createServer } from 'node:http';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}

function value(v: OtlpValue): unknown {
  return v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue ?? v.arrayValue?.values?.map(value);
}

export async function startOtlpReceiver(): Promise<{ endpoint: string; spans: ReceivedSpan[]; stop(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          resourceSpans?: Array<{
            resource?: { attributes?: OtlpKeyValue[] };
            scopeSpans?: Array<{ spans?: Array<Record<string, unknown> & { attributes?: OtlpKeyValue[] }> }>;
          }>;
        };
        for (const rs of body.resourceSpans ?? []) {
          const service = String(value(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}) ?? '');
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: String(s.traceId),
                spanId: String(s.spanId),
                parentSpanId: String(s.parentSpanId ?? ''),
                name: String(s.name),
                kind: Number(s.kind),
                attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, value(a.value)])),
                status: (s.status ?? {}) as ReceivedSpan['status'],
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Environment that makes a service export every span promptly to the receiver. */
export function otlpEnv(endpoint: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  };
}
