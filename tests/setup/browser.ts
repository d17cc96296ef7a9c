// Debian's chromium driven by playwright-core (never a downloaded browser), offline: requests that
// leave loopback (the login page's web font) are aborted.
import { execSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export function chromiumPath(): string {
  try {
    return execSync('command -v chromium || command -v chromium-browser', { shell: '/bin/sh' }).toString().trim();
  } catch {
    throw new Error('chromium is not installed: apt-get install -y chromium (.ci/run does it)');
  }
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Only the app under test is reachable. */
export const offlineOnly = (url: URL): boolean => !['127.0.0.1', 'localhost'].includes(url.hostname);
