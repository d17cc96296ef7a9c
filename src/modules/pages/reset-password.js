// Choosing a new password from the link in a welcome or reset e-mail: the token travels in the URL
// fragment (never sent to a server in a request line or a Referer), and is posted once to the API.
(() => {
  const form = document.getElementById('reset-form');
  const status = document.getElementById('status');
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  // drop the token from the address bar and the history once read
  if (token) history.replaceState(null, '', location.pathname);
  const show = (kind, text) => {
    status.className = `status ${kind}`;
    status.textContent = text;
  };
  if (!token) {
    form.hidden = true;
    show('error', 'This link has no reset token. Open the link from your e-mail again, or ask for a new one.');
    return;
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const password = form.elements.password.value;
    if (password !== form.elements.confirm.value) return show('error', 'The two passwords do not match.');
    if (password.length < 12) return show('error', 'Use at least 12 characters.');
    form.querySelector('button').disabled = true;
    try {
      const res = await fetch('/api/auth/password-reset', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ token, password }),
      });
      if (res.status === 204) {
        form.hidden = true;
        return show('ok', 'Your password is set. You can now log in with your e-mail address and the new password.');
      }
      const problem = await res.json().catch(() => ({}));
      show(
        'error',
        problem.code === 'invalid_reset_token'
          ? 'This link has expired or was already used. Ask for a new password reset.'
          : problem.detail || 'The password could not be set.',
      );
    } catch {
      show('error', 'The server could not be reached. Try again in a moment.');
    } finally {
      form.querySelector('button').disabled = false;
    }
  });
})();
