/* global document, location, window */
import { api, status, text } from './api.js';
import { creationOptions, credentialJSON, supported } from './webauthn.js';

const $ = (id) => document.getElementById(id);
const statusEl = $('status');
const fail = (err) => status(statusEl, err.message, true);
/** A date and time in the page's language. */
const when = (value) => new Date(value).toLocaleString(document.documentElement.lang || undefined);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'dataset') Object.assign(node.dataset, v);
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

async function loadPasskeys() {
  const passkeys = await api('/passkey/list-user-passkeys');
  const list = $('passkey-list');
  list.replaceChildren(
    ...passkeys.map((p) => {
      const input = el('input', { class: 'passkey-rename', type: 'text', 'aria-label': text('newName'), value: p.name ?? '' });
      const rename = el('button', { class: 'rename-passkey', type: 'button', text: text('rename') });
      const remove = el('button', { class: 'delete-passkey secondary', type: 'button', text: text('remove') });
      rename.addEventListener('click', () =>
        api('/passkey/update-passkey', { id: p.id, name: input.value.trim() })
          .then(() => status(statusEl, text('renamed')))
          .then(loadPasskeys)
          .catch(fail),
      );
      remove.addEventListener('click', () =>
        api('/passkey/delete-passkey', { id: p.id })
          .then(() => status(statusEl, text('removed')))
          .then(loadPasskeys)
          .catch(fail),
      );
      const created = p.createdAt ? ` · ${text('addedOn')} ${when(p.createdAt)}` : '';
      return el(
        'li',
        { dataset: { passkeyId: p.id } },
        el('span', { class: 'passkey-name', text: p.name || text('passkey') }),
        created,
        el('br'),
        input,
        rename,
        remove,
      );
    }),
  );
  if (!passkeys.length) list.append(el('li', { class: 'empty', text: text('noPasskeysYet') }));
}

async function loadSessions() {
  const sessions = await api('/account/sessions');
  $('session-list').replaceChildren(
    ...sessions.map((s) => {
      const item = el(
        'li',
        { dataset: { sessionId: s.id, current: String(s.current) } },
        el('span', { class: 'session-agent', text: s.userAgent || text('unknownBrowser') }),
        ` · ${s.ipAddress || text('unknownAddress')} · ${text('since')} ${when(s.createdAt)}`,
        s.current ? el('strong', { text: ` ${text('thisBrowser')}` }) : '',
      );
      if (!s.current) {
        const end = el('button', { class: 'revoke-session secondary', type: 'button', text: text('signOut') });
        end.addEventListener('click', () => api('/account/revoke-session', { id: s.id }).then(loadSessions).catch(fail));
        item.append(' ', end);
      }
      return item;
    }),
  );
}

async function loadUsers() {
  if (!$('user-list')) return;
  const { users } = await api('/tenant/users');
  $('user-list').replaceChildren(
    ...users.map((u) => {
      const item = el(
        'li',
        { dataset: { userId: u.id, active: String(u.active) } },
        `${u.email} · ${u.role}${u.active ? '' : ` · ${text('deactivated')}`}`,
      );
      if (u.active) {
        const off = el('button', { class: 'deactivate-user secondary', type: 'button', text: text('deactivate') });
        off.addEventListener('click', () => api('/tenant/deactivate-user', { userId: u.id }).then(loadUsers).catch(fail));
        item.append(' ', off);
      }
      return item;
    }),
  );
}

$('register-passkey').addEventListener('click', async () => {
  if (!supported()) return status(statusEl, text('noPasskeys'), true);
  try {
    const options = await api('/passkey/generate-register-options');
    const credential = await window.navigator.credentials.create({ publicKey: creationOptions(options) });
    const name = $('passkey-name').value.trim() || undefined;
    await api('/passkey/verify-registration', { response: credentialJSON(credential), name });
    $('passkey-name').value = '';
    status(statusEl, text('passkeyAdded'));
    await loadPasskeys();
  } catch (err) {
    fail(err);
  }
});

$('revoke-other-sessions').addEventListener('click', () =>
  api('/revoke-other-sessions', {})
    .then(() => status(statusEl, text('signedOutElsewhere')))
    .then(loadSessions)
    .catch(fail),
);

$('sign-out').addEventListener('click', () =>
  api('/sign-out', {})
    .then(() => location.assign('/auth/sign-in'))
    .catch(fail),
);

$('invite-form')?.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!$('invite-role').value) return status(statusEl, text('chooseRole'), true);
  api('/tenant/invite-user', { email: $('invite-email').value.trim(), role: $('invite-role').value })
    .then(() => status(statusEl, text('invitationSent')))
    .then(loadUsers)
    .catch(fail);
});

Promise.all([loadPasskeys(), loadSessions(), loadUsers()]).catch(fail);
