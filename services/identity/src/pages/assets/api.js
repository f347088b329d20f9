/* global fetch, document */
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
    const error = new Error((data && (data.message || data.error_description)) || `request failed (${res.status})`);
    error.status = res.status;
    error.code = data && (data.code || data.error);
    throw error;
  }
  return data;
}

export function status(el, message, isError = false) {
  el.textContent = message;
  el.classList.toggle('error', isError);
}

/** What the page says in the language it was rendered in (the server's data block, pages/i18n.ts). */
const pageText = (() => {
  try {
    return JSON.parse(document.getElementById('page-text')?.textContent || '{}');
  } catch {
    return {};
  }
})();
export const text = (key, fallback = key) => pageText[key] ?? fallback;
