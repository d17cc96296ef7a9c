// The browser for the Admin Portal tests comes from npm, so `npm test` needs nothing but Node:
// @sparticuz/chromium ships a headless Chromium (with its fonts and libraries) inside the package and
// unpacks it into the temp folder on first use. CHROMIUM_PATH runs a system browser instead.
// Offline: requests that leave loopback (the login page's web font) are aborted.
// One Chromium per test process, shared by the browser files run in it one after the other (each
// with contexts of its own): a launch costs seconds of CPU.
import chromiumPackage from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

const COMMON_ARGS = [
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

// The package's flags are made for a serverless function; these do not fit a test run.
// --single-process: closing one browser context takes the whole browser down.
// The GPU emulated in software (SwiftShader through ANGLE) for WebGL, which the portal never draws:
// it took half of a browser file's CPU (users-portal: 47 s of CPU with it, 23 s with --disable-gpu,
// the same 11 tests passing), and the suite is CPU-bound.
const SERVERLESS_ONLY = new Set([
  '--single-process',
  '--in-process-gpu',
  '--ignore-gpu-blocklist',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
]);

async function launchBrowser(): Promise<Browser> {
  const CHROMIUM_PATH = process.env.CHROMIUM_PATH?.trim();
  if (CHROMIUM_PATH) {
    return chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', ...COMMON_ARGS],
    });
  }
  const args = chromiumPackage.args.filter((arg) => !SERVERLESS_ONLY.has(arg));
  return chromium.launch({
    executablePath: await chromiumPackage.executablePath(),
    args: [...args, '--disable-gpu', ...COMMON_ARGS],
  });
}

let shared: Promise<Browser> | undefined;
let users = 0;
let closing: NodeJS.Timeout | undefined;

/** The process's browser (launched on first use, or again if it went away); pair with releaseBrowser. */
export async function acquireBrowser(): Promise<Browser> {
  clearTimeout(closing);
  users++;
  const current = shared && (await shared.catch(() => undefined));
  if (!current?.isConnected()) shared = launchBrowser();
  return shared!;
}

/**
 * Closes the contexts of the file letting go (files run one at a time in a process, so they are its
 * own); the browser closes when no file takes it within a few seconds, so the process can end.
 */
export async function releaseBrowser(): Promise<void> {
  if (users === 0 || !shared) return;
  users--;
  const browser = await shared.catch(() => undefined);
  for (const context of browser?.contexts() ?? []) await context.close().catch(() => undefined);
  if (users > 0) return;
  closing = setTimeout(() => {
    const closed = shared;
    shared = undefined;
    void closed?.then((b) => b.close()).catch(() => undefined);
  }, 5_000);
}

/** Only the app under test is reachable. */
export const offlineOnly = (url: URL): boolean => !['127.0.0.1', 'localhost'].includes(url.hostname);
