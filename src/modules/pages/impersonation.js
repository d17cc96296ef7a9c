// The landing page of "Open the user's portal" after an impersonation starts: the token arrives in
// the fragment; the page shows whom it acts as (GET /api/auth/me with it), how to use it, and ends
// the session on request (DELETE /api/admin/impersonate).
(() => {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('access_token');
  if (token) history.replaceState(null, '', location.pathname);
  const $ = (id) => document.getElementById(id);
  const ROLE_LABELS = JSON.parse($('session').dataset.roleLabels || '{}'); // the server's labels
  const show = (kind, text) => {
    $('status').className = `status ${kind}`;
    $('status').textContent = text;
  };
  if (!token) return; // the page's static text explains what this address is for
  $('session').hidden = false;
  $('curl').textContent = `curl -H 'Authorization: Bearer ${token}' ${location.origin}/api/auth/me`;
  const headers = { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  fetch('/api/auth/me', { headers }).then(
    async (res) => {
      const body = await res.json().catch(() => ({}));
      if (!res.ok) return show('error', body.detail || 'This impersonation token is no longer valid.');
      $('target').textContent = `${body.firstName} ${body.lastName} <${body.email}>`;
      $('role').textContent = ROLE_LABELS[body.role] || body.role;
      $('mode').textContent =
        body.impersonation && body.impersonation.mode === 'act_as_user'
          ? 'Act as user (changes are allowed and logged)'
          : 'Read-only';
    },
    () => show('error', 'The server could not be reached.'),
  );
  $('copy').addEventListener('click', () =>
    navigator.clipboard.writeText(token).then(
      () => show('ok', 'Token copied.'),
      () => show('error', 'Copy failed: select the command above instead.'),
    ),
  );
  $('end').addEventListener('click', async () => {
    const res = await fetch('/api/admin/impersonate', { method: 'DELETE', headers });
    if (res.ok) {
      $('session').hidden = true;
      show('ok', 'The impersonation session has ended. You can close this tab.');
    } else {
      const body = await res.json().catch(() => ({}));
      show('error', body.detail || 'The session could not be ended.');
    }
  });
})();
