/* global fetch */
// JSON calls to identity's /api/auth, same origin, cookies included.
export async function api(path, body) {
  const res = await fetch(`/api/auth${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = (() => {
    try {
      return text ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  })();
  if (!res.ok) {
    // The envelope ({error: {message, data: {code, reason}}}) or, on OAuth endpoints, RFC 6749's shape.
    const envelope = data && typeof data.error === 'object' ? data.error : undefined;
    const message = envelope ? envelope.message : data && data.error_description;
    const error = new Error(message || `request failed (${res.status})`);
    error.status = res.status;
    error.code = envelope ? envelope.data.reason || envelope.data.code : data && data.error;
    throw error;
  }
  return data;
}

export function status(el, message, isError = false) {
  el.textContent = message;
  el.classList.toggle('error', isError);
}
