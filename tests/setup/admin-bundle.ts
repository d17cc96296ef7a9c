// The Admin Portal's components bundle, built once for all the browser test files. Outside production
// AdminJS bundles the components (rollup and babel: about 10 s of CPU) on the first request for
// /admin/frontend/assets/components.bundle.js and serves <ADMIN_JS_TMP_DIR>/bundle.js from then on.
// The bundle depends only on the files under admin/ and the installed AdminJS, so the first process
// keeps a copy, named by their SHA-256, in node_modules/.cache/guildhall-tests/, and the others put
// that copy in their own bundle folder instead of bundling again.
//
// AdminJS reads ADMIN_JS_TMP_DIR once, when its module loads: every test app of a process gets the
// same folder (portalBundleDir, startTestApp's default), so browser files may share a process with
// each other and with API files.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cacheDir = path.join(root, 'node_modules/.cache/guildhall-tests');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
    ),
  );
  return nested.flat().sort();
}

async function bundleKey(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await filesUnder(path.join(root, 'admin')))
    hash
      .update(path.relative(root, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  for (const name of ['adminjs', '@adminjs/express', 'rollup'])
    hash.update(JSON.parse(await readFile(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version);
  hash.update(process.env.NODE_ENV ?? '');
  return hash.digest('hex').slice(0, 24);
}

let processBundleDir: string | undefined;
/** This process's ADMIN_JS_TMP_DIR, removed when the process ends. */
export function portalBundleDir(): string {
  if (!processBundleDir) {
    const dir = mkdtempSync(path.join(tmpdir(), 'guildhall-adminjs-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    processBundleDir = dir;
  }
  return processBundleDir;
}

/**
 * Puts the components bundle in this process's bundle folder for the portal served at `base`. Call it
 * once the portal has loaded (after a first request to /admin/login, which drops a bundle left in the
 * folder).
 */
export async function prepareAdminBundle(base: string): Promise<void> {
  const bundleDir = portalBundleDir();
  const cached = path.join(cacheDir, `adminjs-bundle-${await bundleKey()}.js`);
  try {
    await copyFile(cached, path.join(bundleDir, 'bundle.js'));
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const res = await fetch(`${base}/admin/frontend/assets/components.bundle.js`); // bundles them
  if (res.status !== 200) throw new Error(`the components bundle failed: ${res.status} ${await res.text()}`);
  await mkdir(cacheDir, { recursive: true });
  const partial = `${cached}.${process.pid}`;
  await copyFile(path.join(bundleDir, 'bundle.js'), partial);
  await rename(partial, cached); // whole or not at all, whichever process renames last
}
