import { Router, static as serveStatic } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { errorCatalog, type ErrorCode } from '../shared/errors.ts';
import { escapeHtml } from '../shared/html.ts';
import type { Contract } from './openapi.ts';

const swaggerUiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:0 .25rem}</style>
</head><body>${body}</body></html>`;

/** The contract, browsable docs (served from the swagger-ui-dist package: works offline) and error pages. */
export function docsRoutes(contract: Contract): Router {
  const router = Router();
  const json = JSON.stringify(contract.document);
  router.get('/api/openapi.yaml', (_req, res) => void res.type('application/yaml').send(contract.yaml));
  router.get('/api/openapi.json', (_req, res) => void res.type('application/json').send(json));
  router.use('/api/docs/assets', serveStatic(swaggerUiDir, { index: false }));
  router.get('/api/docs', (_req, res) => {
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Guildhall API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script></body></html>`);
  });
  // a separate script file keeps the page compatible with a strict Content-Security-Policy
  router.get('/api/docs/init.js', (_req, res) => {
    // "Try it out" must reach the server the docs are served from, not only the contract's example hosts
    res.type('application/javascript').send(`fetch('/api/openapi.json').then((r) => r.json()).then((spec) => {
  spec.servers = [{ url: location.origin, description: 'This server' }, ...(spec.servers || []).filter((s) => s.url !== location.origin)];
  window.ui = SwaggerUIBundle({ spec, dom_id: '#ui' });
});`);
  });
  router.get('/errors', (_req, res) => {
    const items = Object.entries(errorCatalog)
      .map(
        ([code, d]) =>
          `<li><a href="/errors/${code}"><code>${code}</code></a> (${d.status}) ${escapeHtml(d.title)}</li>`,
      )
      .join('');
    res.type('html').send(page('Guildhall errors', `<h1>Error codes</h1><ul>${items}</ul>`));
  });
  router.get('/errors/:code', (req, res) => {
    const definition = errorCatalog[req.params.code as ErrorCode];
    if (!definition) {
      res
        .status(404)
        .type('html')
        .send(page('Unknown error code', '<h1>Unknown error code</h1><p><a href="/errors">All codes</a></p>'));
      return;
    }
    res.type('html').send(
      page(
        definition.title,
        `<h1>${escapeHtml(definition.title)}</h1><p>HTTP status <strong>${definition.status}</strong>, code <code>${escapeHtml(req.params.code)}</code></p>
<p>${escapeHtml(definition.description)}</p><p><a href="/errors">All error codes</a> · <a href="/api/docs">API reference</a></p>`,
      ),
    );
  });
  return router;
}
