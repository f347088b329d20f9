/* global window, document, performance, fetch, URLSearchParams */
// The playground: pick a procedure, edit its input, send it from this browser to the gateway's
// /trpc with the user's own credential (session cookie or bearer token), and show what came back.
// No framework, no CDN. Elements have stable ids for tests: #api-base, #auth-cookie, #auth-bearer,
// #bearer-token, #procedure, #input, #send, #status, #response, #next-page.

/** Built-in catalog: the records procedures with an example input each. */
const PROCEDURES = [
  { name: 'healthCheck', kind: 'query', summary: 'Public health check (no credential needed)', example: null },
  { name: 'pasien.list', kind: 'query', summary: 'List and search patients (keyset pages)', example: { q: 'siti', limit: 10 } },
  { name: 'pasien.get', kind: 'query', summary: 'Read one patient by id', example: { id: '00000000-0000-4000-8000-000000000000' } },
  {
    name: 'pasien.create',
    kind: 'mutation',
    summary: 'Register a patient (needs simrs:write)',
    example: {
      nik: '3273055708850012',
      nama: 'Siti Aminah',
      tempatLahir: 'Bandung',
      tanggalLahir: '1985-08-17',
      jenisKelamin: 'P',
      alamat: 'Jl. Merdeka No. 10',
      kotaKabupaten: 'Kota Bandung',
      provinsi: 'Jawa Barat',
      telepon: '0812-3456-7890',
    },
  },
  {
    name: 'pasien.update',
    kind: 'mutation',
    summary: 'Correct a patient record (only given fields change)',
    example: { id: '00000000-0000-4000-8000-000000000000', alamat: 'Jl. Sudirman No. 5' },
  },
  {
    name: 'pasien.archive',
    kind: 'mutation',
    summary: 'Archive a patient',
    example: { id: '00000000-0000-4000-8000-000000000000', reason: 'duplicate registration' },
  },
  { name: 'audit.list', kind: 'query', summary: 'Read the audit trail (auditor, tenant admin)', example: { limit: 20 } },
];

const $ = (id) => document.getElementById(id);
const els = {
  form: $('playground'),
  base: $('api-base'),
  cookie: $('auth-cookie'),
  bearer: $('auth-bearer'),
  bearerRow: $('bearer-row'),
  token: $('bearer-token'),
  procedure: $('procedure'),
  procedureHelp: $('procedure-help'),
  input: $('input'),
  send: $('send'),
  next: $('next-page'),
  reset: $('reset-input'),
  loadOpenapi: $('load-openapi'),
  prefix: $('openapi-prefix'),
  status: $('status'),
  duration: $('duration'),
  requestLine: $('request-line'),
  response: $('response'),
};

let catalog = [...PROCEDURES];
let lastCursor = null;

/** The API base without a trailing slash; the page's origin when empty. `?api=` presets it. */
function apiBase() {
  const value = els.base.value.trim();
  return (value || window.location.origin).replace(/\/+$/, '');
}

function renderProcedures(selected) {
  els.procedure.replaceChildren(
    ...catalog.map((p) => {
      const option = document.createElement('option');
      option.value = p.name;
      option.textContent = `${p.name} (${p.kind})`;
      return option;
    }),
  );
  if (selected && catalog.some((p) => p.name === selected)) els.procedure.value = selected;
  onProcedureChange();
}

function current() {
  return catalog.find((p) => p.name === els.procedure.value) ?? catalog[0];
}

function onProcedureChange() {
  const p = current();
  els.procedureHelp.textContent = p.summary ?? '';
  els.input.value = p.example === null || p.example === undefined ? '' : JSON.stringify(p.example, null, 2);
  els.input.disabled = p.example === null;
  lastCursor = null;
  els.next.disabled = true;
}

function setStatus(text, ok) {
  els.status.textContent = text;
  els.status.className = ok === undefined ? '' : ok ? 'ok' : 'error';
}

function show(body) {
  els.response.textContent = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
}

/** Sends the selected procedure; returns nothing, renders status and body. */
async function send(event) {
  event?.preventDefault();
  const p = current();
  let input;
  const text = els.input.value.trim();
  if (text !== '') {
    try {
      input = JSON.parse(text);
    } catch (err) {
      setStatus(`input is not valid JSON: ${err.message}`, false);
      els.input.focus();
      return;
    }
  }
  const headers = {};
  const useBearer = els.bearer.checked;
  if (useBearer) {
    const token = els.token.value.trim();
    if (!token) {
      setStatus('paste an access token first, or choose the session cookie', false);
      els.token.focus();
      return;
    }
    headers.authorization = `Bearer ${token}`;
  }
  let url = `${apiBase()}/trpc/${encodeURIComponent(p.name).replace(/%2E/gi, '.')}`;
  const init = { method: 'GET', headers, credentials: useBearer ? 'omit' : 'include', mode: 'cors' };
  if (p.kind === 'mutation') {
    init.method = 'POST';
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(input ?? {});
  } else if (input !== undefined) {
    url += `?input=${encodeURIComponent(JSON.stringify(input))}`;
  }
  els.requestLine.textContent = `${init.method} ${url}`;
  setStatus('sending…');
  els.send.disabled = true;
  const started = performance.now();
  try {
    const res = await fetch(url, init);
    const raw = await res.text();
    const ms = Math.round(performance.now() - started);
    els.duration.textContent = `(${ms} ms)`;
    let body = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      /* not JSON: show as text */
    }
    setStatus(`${res.status} ${res.statusText}`.trim(), res.ok);
    show(body);
    lastCursor = body?.result?.data?.nextCursor ?? null;
    els.next.disabled = !lastCursor;
  } catch (err) {
    // A CORS refusal or an unreachable API: the browser gives no status, only a TypeError.
    els.duration.textContent = '';
    setStatus(`network error: ${err.message} (is the API base right, and this origin allowed by the gateway?)`, false);
    show('');
    lastCursor = null;
    els.next.disabled = true;
  } finally {
    els.send.disabled = false;
  }
}

function useNextCursor() {
  if (!lastCursor) return;
  let input = {};
  try {
    input = JSON.parse(els.input.value || '{}') ?? {};
  } catch {
    /* start afresh */
  }
  els.input.value = JSON.stringify({ ...input, cursor: lastCursor }, null, 2);
  els.input.focus();
}

/** Reads the OpenAPI document and lists its operations as procedures (operationId "pasien-list"). */
async function loadFromOpenapi() {
  const prefix = `/${els.prefix.value.trim().replace(/^\/+|\/+$/g, '')}`;
  const url = `${apiBase()}${prefix}/openapi.json`;
  setStatus(`loading ${url}…`);
  try {
    const res = await fetch(url, {
      credentials: els.bearer.checked ? 'omit' : 'include',
      headers: els.bearer.checked && els.token.value ? { authorization: `Bearer ${els.token.value.trim()}` } : {},
    });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const doc = await res.json();
    const found = [];
    for (const item of Object.values(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(item)) {
        if (!op.operationId) continue;
        const name = op.operationId.replace(/-/g, '.');
        const known = PROCEDURES.find((p) => p.name === name);
        found.push({
          name,
          kind: method === 'get' ? 'query' : 'mutation',
          summary: op.summary ?? known?.summary ?? '',
          example: known ? known.example : {},
        });
      }
    }
    if (found.length === 0) throw new Error('the document lists no operations');
    const selected = els.procedure.value;
    catalog = found.sort((a, b) => a.name.localeCompare(b.name));
    renderProcedures(selected);
    setStatus(`loaded ${found.length} procedures from the OpenAPI document`, true);
  } catch (err) {
    setStatus(`could not load the OpenAPI document: ${err.message}`, false);
  }
}

function syncAuth() {
  els.bearerRow.hidden = !els.bearer.checked;
}

const params = new URLSearchParams(window.location.search);
els.base.value = params.get('api') ?? '';
els.form.addEventListener('submit', send);
els.procedure.addEventListener('change', onProcedureChange);
els.cookie.addEventListener('change', syncAuth);
els.bearer.addEventListener('change', syncAuth);
els.next.addEventListener('click', useNextCursor);
els.reset.addEventListener('click', onProcedureChange);
els.loadOpenapi.addEventListener('click', loadFromOpenapi);
renderProcedures(params.get('procedure') ?? 'pasien.list');
syncAuth();
document.documentElement.dataset.ready = 'true';
