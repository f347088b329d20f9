// The frame every page shares, and HTML escaping for what goes into it.
export const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function layout(title: string, script: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · SIMRS</title>
<link rel="stylesheet" href="/auth/assets/style.css">
<script type="module" src="/auth/assets/${script}"></script>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}
