// One small, accessible HTML layout for the few pages Guildhall serves to people outside the Admin
// Portal (the home page, choosing a new password, the impersonation landing page). No inline script,
// so the pages run under a strict Content-Security-Policy.
import { escapeHtml } from '../../shared/html.ts';

export { escapeHtml };

export const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
} as const;

export function layout(title: string, body: string, script?: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Guildhall</title>
<link rel="stylesheet" href="/pages/page.css">
</head>
<body>
<header><a class="brand" href="/">Guildhall</a></header>
<main id="main">
${body}
</main>
${script ? `<script src="/pages/${script}" defer></script>` : ''}
</body>
</html>`;
}
