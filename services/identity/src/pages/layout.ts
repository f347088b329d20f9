// The frame every page shares, and HTML escaping for what goes into it.
import { PAGE_TEXT } from './i18n.ts';
import type { PageLocale } from './i18n.ts';
export const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** JSON inside a <script type="application/json"> block: nothing in it can close the element. */
const jsonBlock = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The page in `locale`; its script reads what it says later from the data block (assets/api.js, text()),
 * a block the CSP lets through because it is data, not code.
 */
export function layout(title: string, script: string, body: string, locale: PageLocale = 'en'): string {
  return `<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · SIMRS</title>
<link rel="stylesheet" href="/auth/assets/style.css">
<script type="application/json" id="page-text">${jsonBlock(PAGE_TEXT[locale].script)}</script>
<script type="module" src="/auth/assets/${script}"></script>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}
