// The browser for the Admin Portal tests comes from npm, so `npm test` needs nothing but Node:
// @sparticuz/chromium ships a headless Chromium (with its fonts and libraries) inside the package and
// unpacks it into the temp folder on first use. CHROMIUM_PATH runs a system browser instead.
// Offline: requests that leave loopback (the login page's web font) are aborted.
import chromiumPackage from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

const COMMON_ARGS = [
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launchBrowser(): Promise<Browser> {
  const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim();
  if (CHROMIUM_PATH) {
    return chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', ...COMMON_ARGS],
    });
  }
  // the package's own flags fit its build (SwiftShader for WebGL, no sandbox), except --single-process,
  // meant for serverless functions: there closing one browser context takes the whole browser down
  const args = chromiumPackage.args.filter((arg) => arg !== '--single-process');
  return chromium.launch({ executablePath: await chromiumPackage.executablePath(), args: [...args, ...COMMON_ARGS] });
}

/** Only the app under test is reachable. */
export const offlineOnly = (url: URL): boolean => !['127.0.0.1', 'localhost'].includes(url.hostname);
