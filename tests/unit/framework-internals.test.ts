// Tripwires for the places that rely on a package's private internals (docs/performance.md, "Framework
// internals"). Each was written and measured against one version; when an upgrade changes that version
// this test fails and names the file to review, so nobody learns of a moved internal from production.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

const require = createRequire(import.meta.url);

interface Reliance {
  /** The package whose internals are used, resolved from `from` (a package or this file). */
  name: string;
  from?: string;
  version: string;
  where: string;
  what: string;
}

const RELIANCES: Reliance[] = [
  {
    name: 'express-openapi-validator',
    version: '5.6.2',
    where: 'src/http/openapi.patches.ts',
    what: 'its parameter mutator and route lookup, patched',
  },
  {
    name: 'path-to-regexp',
    from: 'express-openapi-validator',
    version: '8.4.2',
    where: 'src/http/openapi.patches.ts',
    what: 'pathToRegexp, memoised',
  },
  {
    name: 'router',
    version: '2.3.0',
    where: 'src/http/dispatch.ts',
    what: "a router's stack of layers, read to jump to a route",
  },
  {
    name: 'express',
    version: '5.3.0',
    where: 'src/http/express-messages.ts',
    what: "app.request and app.response as the messages' prototypes",
  },
  {
    name: 'sequelize',
    version: '6.37.8',
    where: 'src/shared/sql.ts, src/jobs/queue.ts',
    what: "a transaction's `connection`",
  },
  {
    name: '@electric-sql/pglite-socket',
    version: '0.2.17',
    where: 'src/shared/database.ts',
    what: "the socket server's inner `server`, for its port",
  },
  {
    name: '@energetic-ai/core',
    version: '0.2.0',
    where: 'src/integrations/embeddings/use-lite.embedder.ts',
    what: 'the process handlers TF.js adds on import, removed',
  },
];

function installedVersion(name: string, from?: string): string {
  const base = from ? require.resolve(from) : import.meta.filename;
  // the package's directory, found from its entry point (its package.json may not be exported)
  const entry = require.resolve(name, { paths: [base] });
  const marker = `${'/node_modules/'}${name}/`;
  const root = entry.slice(0, entry.lastIndexOf(marker) + marker.length);
  return (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;
}

describe('framework internals: the versions they were written against', () => {
  for (const reliance of RELIANCES) {
    it(`when ${reliance.name} is installed, then it is ${reliance.version} (${reliance.where})`, () => {
      assert.equal(
        installedVersion(reliance.name, reliance.from),
        reliance.version,
        `${reliance.name} changed: ${reliance.where} relies on ${reliance.what}. Follow the upgrade checklist in ` +
          'docs/performance.md ("Framework internals"), then update the version here.',
      );
    });
  }

  it("when Node's HTTP server keeps a socket's response, then it is where server.ts reads it (socket._httpMessage)", async () => {
    const http = await import('node:http');
    const server = http.createServer((_req, res) => {
      const socket = res.socket as typeof res.socket & { _httpMessage?: unknown };
      res.end(String(socket?._httpMessage === res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const answer = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    server.close();
    assert.equal(
      answer,
      'true',
      'src/http/server.ts reads socket._httpMessage to know whether a response is under way',
    );
  });
});
