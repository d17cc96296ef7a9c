// Builds the Admin Portal's components bundle ahead of time (the Docker image does it at build time):
//   ADMIN_JS_TMP_DIR=/app/adminjs tsx admin/build-bundle.ts
// The service then runs with ADMIN_JS_SKIP_BUNDLE=true and the same ADMIN_JS_TMP_DIR, serving
// <dir>/bundle.js instead of bundling at every start.
import path from 'node:path';
import { loadConfig } from '../src/config.ts';

// the folder given, else the service's own setting (ADMIN_JS_TMP_DIR and its default, from the config)
const dir = path.resolve(process.argv[2] ?? loadConfig().adminJsTmpDir);
// AdminJS reads both when its modules load, so they are set before the dynamic imports below
process.env.ADMIN_JS_TMP_DIR = dir;
process.env.NODE_ENV = 'production';
delete process.env.ADMIN_JS_SKIP_BUNDLE;

const { default: AdminJS, ComponentLoader } = await import('adminjs');
const { loadComponents } = await import('./components/index.ts');
const componentLoader = new ComponentLoader();
loadComponents(componentLoader);
// only the components matter to the bundle, not the resources
await new AdminJS({ rootPath: '/admin', componentLoader }).initialize();
console.log(`Admin Portal components bundled into ${path.join(dir, 'bundle.js')}`);
