// The MCP server against the real records process, driven by the official SDK client: the tools and
// their schemas, each tool's answer, what each role is refused (the permission matrix and need-to-know,
// as the procedures they mirror), another hospital's records out of reach by id and by search, the
// step-up answer for a write without simrs:write, and one audit row per procedure a tool reached,
// naming the client, the user, the tool and the patient.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROLES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import { PROCEDURES, roleMay } from '../access/index.ts';
import type { ProcedureName } from '../access/index.ts';
import { chart, dataOf, loadCodes, startRecords } from '../testing/index.ts';
import type { Chart, RecordsUnderTest } from '../testing/index.ts';

const CLIENT = 'agent-test';

/** The records procedures each tool calls (what its answer needs). */
const TOOL_PROCEDURES: Record<string, ProcedureName[]> = {
  find_patients: ['pasien.list'],
  patient_summary: ['alergi.list', 'diagnosis.list', 'vital.list', 'kunjungan.list', 'pasien.get'],
  visit_details: ['vital.list', 'diagnosis.list', 'catatan.list', 'kunjungan.get'],
  clinic_worklist: ['kunjungan.list'],
  record_vital_signs: ['vital.record'],
};
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the MCP server', () => {
  let r: RecordsUnderTest;
  let c: Chart;
  let poliId: string;
  const clients: Client[] = [];

  /** An SDK client acting for `principal` (what the gateway would sign for the agent's token). */
  async function agent(principal: string): Promise<Client> {
    const client = new Client({ name: 'records-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${r.url}${r.prefix}/mcp`), {
      requestInit: { headers: { 'x-simrs-principal': principal } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const as = async (tenant: string, role: string, userId: string, scopes?: string[]) =>
    agent(await r.principal(tenant, role, { userId, clientId: CLIENT, sessionId: undefined, ...(scopes ? { scopes } : {}) }));
  const call = async (client: Client, name: string, args: Json) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const data = (result: CallToolResult): Json => {
    assert.ok(!result.isError, JSON.stringify(result.content));
    return result.structuredContent as Json;
  };
  const refusal = (result: CallToolResult): string => {
    assert.equal(result.isError, true, JSON.stringify(result.structuredContent));
    return (result.content[0] as { text: string }).text;
  };

  /** Valid arguments for each tool against the chart. */
  const argsFor = (tool: string): Json =>
    ({
      find_patients: { name: 'siti' },
      patient_summary: { pasienId: c.pasienId },
      visit_details: { kunjunganId: c.visit },
      clinic_worklist: {},
      record_vital_signs: { kunjunganId: c.visit, measurements: [{ key: 'nadi', value: 80, unit: '/min' }] },
    })[tool]!;

  /** A write tool called by an agent whose token carries simrs:read only. */
  const writeWithReadScope = async (records: RecordsUnderTest): Promise<Response> => {
    const readOnly = await records.principal('rs-demo', 'doctor', { userId: 'dr-ani', clientId: CLIENT, scopes: ['simrs:read'] });
    return fetch(`${records.url}${records.prefix}/mcp`, {
      method: 'POST',
      headers: { 'x-simrs-principal': readOnly, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'record_vital_signs', arguments: {} } }),
    });
  };

  before(async () => {
    r = await startRecords('mcp');
    const admin = await r.principal('rs-demo', 'tenant_admin');
    poliId = dataOf<{ id: string }>(await r.mutate('poli.create', { kode: 'UMUM', nama: 'Poli Umum' }, admin)).id;
    for (const userId of ['dr-ani', 'ns-ina']) dataOf(await r.mutate('poli.assign', { poliId, userId }, admin));
    await loadCodes(r);
    c = await chart(r, 7001, poliId, await r.principal('rs-demo', 'doctor', { userId: 'dr-ani' }));
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await r?.stop();
  });

  test('lists its tools, each with a description and a JSON schema of its arguments', async () => {
    const { tools } = await (await as('rs-demo', 'doctor', 'dr-ani')).listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'clinic_worklist',
      'find_patients',
      'patient_summary',
      'record_vital_signs',
      'visit_details',
    ]);
    for (const tool of tools) {
      assert.ok((tool.description ?? '').length > 60, tool.name);
      assert.equal(tool.inputSchema.type, 'object');
      assert.ok(Object.keys(tool.inputSchema.properties ?? {}).length > 0, tool.name);
    }
    const record = tools.find((t) => t.name === 'record_vital_signs')!;
    assert.equal(record.annotations?.readOnlyHint, false);
    assert.deepEqual((record.inputSchema.required as string[]).sort(), ['kunjunganId', 'measurements']);
  });

  test("a doctor's agent finds, summarises, reads the visit and the worklist, and records vital signs", async () => {
    const doctor = await as('rs-demo', 'doctor', 'dr-ani');
    const patient = dataOf<{ nama: string; nik: string; noRm: string }>(
      await r.query('pasien.get', { id: c.pasienId }, await r.principal('rs-demo', 'doctor')),
    );
    const byName = data(await call(doctor, 'find_patients', { name: patient.nama.split(' ')[0]! }));
    const found = byName.patients.find((p: Json) => p.pasienId === c.pasienId);
    assert.deepEqual(Object.keys(found).sort(), ['birthDate', 'mrn', 'name', 'pasienId', 'sex', 'status'], 'no NIK unless asked by NIK');
    assert.equal(data(await call(doctor, 'find_patients', { nik: patient.nik })).patients[0].nik, patient.nik);
    assert.match(refusal(await call(doctor, 'find_patients', {})), /at least one of name, nik or mrn/);

    const summary = data(await call(doctor, 'patient_summary', { pasienId: c.pasienId }));
    assert.equal(summary.patient.nik, undefined);
    assert.deepEqual(summary.allergies[0].substance, { recordText: 'Amoksisilin' }, 'free text comes labelled as record text');
    assert.equal(summary.activeProblems[0].code, 'J06.9');
    assert.deepEqual(
      summary.lastVitalSigns.map((v: Json) => [v.sign, v.value, v.flag]),
      [['bloodPressure', '120/80', 'N']],
    );
    assert.equal(summary.lastVisits[0].kunjunganId, c.visit);
    assert.equal(data(await call(doctor, 'patient_summary', { nik: patient.nik })).patient.nik, patient.nik);

    const details = data(await call(doctor, 'visit_details', { kunjunganId: c.visit }));
    assert.deepEqual(details.note.subjective, { recordText: 'Batuk tiga hari' });
    assert.equal(details.visit.status, 'in-progress');
    const worklist = data(await call(doctor, 'clinic_worklist', { clinicCode: 'umum' }));
    assert.ok(worklist.visits.some((v: Json) => v.kunjunganId === c.visit));

    const recorded = data(
      await call(doctor, 'record_vital_signs', { kunjunganId: c.visit, measurements: [{ key: 'nadi', value: 88, unit: '/min' }] }),
    );
    assert.equal(recorded.recorded[0].flag, 'N');
    assert.match(
      refusal(
        await call(doctor, 'record_vital_signs', { kunjunganId: c.visit, measurements: [{ key: 'nadi', value: 900, unit: '/min' }] }),
      ),
      /^BAD_REQUEST: .*heart rate of 900 \/min is not plausible/,
    );
  });

  test('each role, through each tool, is refused exactly what the permission matrix refuses for the procedures the tool calls', async () => {
    const users: Record<Role, string> = {
      tenant_admin: 'adm-1',
      doctor: 'dr-ani',
      nurse: 'ns-ina',
      registration_clerk: 'clerk-1',
      auditor: 'aud-1',
    };
    for (const role of ROLES) {
      // Both scopes: what is refused here is the role's, not the token's.
      const client = await as('rs-demo', role, users[role], ['simrs:read', 'simrs:write']);
      for (const [tool, procedures] of Object.entries(TOOL_PROCEDURES)) {
        const allowed = procedures.every((name) => roleMay(role, PROCEDURES[name].permission));
        const result = await call(client, tool, argsFor(tool));
        if (allowed) data(result);
        else assert.match(refusal(result), /^FORBIDDEN: .*do not retry/, `${role} through ${tool}`);
      }
    }
    // Need-to-know as well: a doctor without a visit of the patient at one of their clinics.
    const stranger = await as('rs-demo', 'doctor', 'dr-budi');
    assert.match(refusal(await call(stranger, 'patient_summary', { pasienId: c.pasienId })), /^FORBIDDEN: .*treatment relationship/);
    assert.match(refusal(await call(stranger, 'record_vital_signs', argsFor('record_vital_signs'))), /^FORBIDDEN/);
  });

  test("another hospital's agent finds nothing of this one, by id or by search", async () => {
    const other = await as('rs-other', 'doctor', 'dr-lain');
    const patient = dataOf<{ nama: string; nik: string; noRm: string }>(
      await r.query('pasien.get', { id: c.pasienId }, await r.principal('rs-demo', 'doctor')),
    );
    assert.deepEqual(data(await call(other, 'find_patients', { nik: patient.nik })).patients, []);
    assert.deepEqual(data(await call(other, 'find_patients', { mrn: patient.noRm })).patients, []);
    assert.deepEqual(data(await call(other, 'clinic_worklist', {})).visits, []);
    assert.match(refusal(await call(other, 'patient_summary', { pasienId: c.pasienId })), /^(FORBIDDEN|NOT_FOUND)/);
    assert.match(refusal(await call(other, 'visit_details', { kunjunganId: c.visit })), /^(FORBIDDEN|NOT_FOUND)/);
  });

  test('a write tool without simrs:write is 403 insufficient_scope naming the scopes to ask for', async () => {
    const res = await writeWithReadScope(r);
    assert.equal(res.status, 403);
    const challenge = res.headers.get('www-authenticate') ?? '';
    assert.match(
      challenge,
      /^Bearer error="insufficient_scope", scope="simrs:read simrs:write", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/api\/v1\/mcp"/,
    );
    const anonymous = await fetch(`${r.url}${r.prefix}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(anonymous.status, 401);
  });

  test("with MCP_RESOURCE set, the 403 names that resource's metadata, as the gateway's 401 does", async () => {
    const resource = 'https://agents.rs-demo.example/mcp';
    const own = await startRecords('mcp-resource', { MCP_RESOURCE: resource });
    try {
      const res = await writeWithReadScope(own);
      assert.equal(res.status, 403);
      // RFC 9728 §3.1: the well-known segment goes between the host and the resource's path.
      const metadata = /resource_metadata="([^"]+)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1];
      assert.equal(metadata, 'https://agents.rs-demo.example/.well-known/oauth-protected-resource/mcp');
    } finally {
      await own.stop();
    }
  });

  test('every procedure a tool reached left its audit row naming the client, the user, the tool and the patient; auditors filter them', async () => {
    const before = (await r.owner.query<{ n: string }>("select count(*) n from records.audit_log where details ? 'tool'")).rows[0]!.n;
    const doctor = await as('rs-demo', 'doctor', 'dr-ani');
    data(await call(doctor, 'patient_summary', { pasienId: c.pasienId }));
    const { rows } = await r.owner.query<{ action: string; client_id: string; actor_user_id: string; tool: string; pasien_ids: string[] }>(
      `select action, client_id, actor_user_id, details->>'tool' tool, pasien_ids::text[] from records.audit_log where details ? 'tool' order by id offset $1`,
      [Number(before)],
    );
    assert.deepEqual(rows.map((x) => x.action).sort(), ['klinis.read', 'klinis.read', 'klinis.read', 'kunjungan.list', 'pasien.get']);
    for (const row of rows) {
      assert.deepEqual([row.client_id, row.actor_user_id, row.tool], [CLIENT, 'dr-ani', 'patient_summary']);
      assert.ok(row.action === 'kunjungan.list' || row.pasien_ids.includes(c.pasienId), row.action);
    }
    // Every tool: each call adds rows naming it, as many as the procedures it reached.
    for (const [tool, procedures] of Object.entries(TOOL_PROCEDURES)) {
      const count = async () =>
        Number(
          (await r.owner.query<{ n: string }>("select count(*) n from records.audit_log where details->>'tool' = $1", [tool])).rows[0]!.n,
        );
      const was = await count();
      data(await call(doctor, tool, argsFor(tool)));
      assert.equal((await count()) - was, procedures.length, `${tool}: one row per procedure reached`);
    }
    const auditor = await r.principal('rs-demo', 'auditor');
    const agentRows = dataOf<{ items: Array<{ details: Json; clientId: string }> }>(
      await r.query('audit.list', { agent: true, limit: 200 }, auditor),
    ).items;
    assert.ok(agentRows.length >= rows.length && agentRows.every((x) => typeof x.details.tool === 'string' && x.clientId === CLIENT));
    const others = dataOf<{ items: Array<{ details: Json }> }>(await r.query('audit.list', { agent: false, limit: 200 }, auditor)).items;
    assert.ok(others.length > 0 && others.every((x) => x.details.tool === undefined));
  });
});
