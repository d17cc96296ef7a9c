// Mounts the Admin Portal. AdminJS is imported only here, on first use (or at start outside tests):
// it reads ADMIN_JS_TMP_DIR once, when its module loads, so the setting must be in place before.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';
import type { AppContext as Container } from '../src/app-context.ts';
import { lazily } from '../src/shared/lazy.ts';
import { withValidPaging } from './list-paging.ts';
import { PORTAL_STYLESHEET, PORTAL_STYLESHEET_PATH } from './portal-styles.ts';

export function adminPortal(container: Container, options: { eager: boolean }): RequestHandler {
  // a failed load is not kept: the next request tries again
  const load = lazily(async () => {
    // Express 5 will not send files from dot-folders, where AdminJS bundles by default (.adminjs)
    const dir = path.resolve(container.config.adminJsTmpDir);
    process.env.ADMIN_JS_TMP_DIR = dir;
    // Outside production AdminJS serves an existing bundle as it is: drop one left by an older
    // checkout so edited components are rebuilt (production rebuilds at every start anyway).
    if (container.config.nodeEnv !== 'production') rmSync(path.join(dir, 'bundle.js'), { force: true });
    const { buildAdminPortal } = await import('./portal.ts');
    return buildAdminPortal(container);
  });
  if (options.eager)
    load().catch((error: unknown) => container.logger.error({ err: error }, 'the Admin Portal failed to load'));
  return (req, res, next) => {
    if (req.method === 'GET' && req.path === PORTAL_STYLESHEET_PATH) {
      res.type('text/css').set('Cache-Control', 'public, max-age=3600').send(PORTAL_STYLESHEET);
      return;
    }
    // Pages and the JSON API carry people's data: the browser keeps none of it (Back after logging out
    // showed the last page's records). The bundles under /frontend/ keep their own caching.
    if (!req.path.startsWith('/frontend/')) res.set('Cache-Control', 'no-store');
    req.url = withValidPaging(req.url);
    // AdminJS parses bodies with formidable, whose JSON parser throws on a malformed body: the
    // sender's mistake (400), which reached Express's default handler as a 500 with a stack trace.
    // Formidable then calls on a second time; going on would answer again, which resets the connection.
    let answered = false;
    const after = (error?: unknown) => {
      if (answered) return;
      if (error instanceof SyntaxError && req.is('application/json') && !res.headersSent) {
        answered = true;
        res.status(400).json({ code: 'malformed_body', message: 'The request body is not valid JSON' });
        return;
      }
      next(error);
    };
    load().then((router) => router(req, res, after), next);
  };
}
