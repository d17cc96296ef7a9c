// Custom React components of the Admin Portal, bundled by AdminJS (in ADMIN_JS_TMP_DIR).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ComponentLoader } from 'adminjs';

const here = path.dirname(fileURLToPath(import.meta.url));

export function loadComponents(loader: ComponentLoader) {
  // login with a one-time code, and the impersonation banner above every page
  loader.override('Login', path.join(here, 'Login.tsx'));
  loader.override('TopBar', path.join(here, 'TopBar.tsx'));
  return {
    DeleteUser: loader.add('DeleteUser', path.join(here, 'DeleteUser.tsx')),
    ImpersonateUser: loader.add('ImpersonateUser', path.join(here, 'ImpersonateUser.tsx')),
    ExportUsers: loader.add('ExportUsers', path.join(here, 'ExportUsers.tsx')),
  };
}

export type PortalComponents = ReturnType<typeof loadComponents>;
