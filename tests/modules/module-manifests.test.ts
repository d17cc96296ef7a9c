// The module list is the one place a module is announced, and a manifest the one place it is wired:
// every manifest must be in the list after the modules it uses, its routes must be operations of the
// contract, and every job it declares must get a handler from it.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Router } from 'express';
import { idempotent } from '../../src/http/idempotency.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { jobTypes } from '../../src/jobs/catalog.ts';
import { jobHandlers } from '../../src/jobs/registry.ts';
import { modules } from '../../src/modules.ts';
import { errorCatalog } from '../../src/shared/errors.ts';
import type { ModuleManifest } from '../../src/shared/module-manifest.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const manifests: readonly ModuleManifest[] = modules;
const modulesDir = join(import.meta.dirname, '../../src/modules');
/** Folders under src/modules that are not modules: a shared layer, and pages the app mounts before every surface. */
const NOT_MODULES = ['crud', 'pages'];

describe('the module list', () => {
  it('when a folder under src/modules has a manifest file, then its exported manifest is in the list', async () => {
    const folders = readdirSync(modulesDir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    for (const folder of folders) {
      const files = readdirSync(join(modulesDir, folder)).filter((f) => f.endsWith('.module.ts'));
      if (NOT_MODULES.includes(folder)) {
        assert.deepEqual(files, [], `${folder} is listed as not a module but has a manifest`);
        continue;
      }
      assert.deepEqual(files, [`${folder}.module.ts`], `src/modules/${folder} has no manifest ${folder}.module.ts`);
      const exported = Object.values(await import(join(modulesDir, folder, files[0]!))) as ModuleManifest[];
      assert.equal(exported.length, 1, `${folder}.module.ts exports one manifest`);
      assert.ok(manifests.includes(exported[0]!), `${folder}.module.ts is not in src/modules.ts`);
      assert.equal(exported[0]!.name, folder);
    }
    const names = manifests.map((m) => m.name);
    assert.equal(new Set(names).size, names.length, 'a manifest is listed twice');
  });

  it('when a module uses another, then the list builds the other first', () => {
    manifests.forEach((manifest, index) => {
      for (const used of (manifest.uses ?? []) as ModuleManifest[]) {
        assert.ok(
          manifests.indexOf(used) > -1 && manifests.indexOf(used) < index,
          `${manifest.name} uses ${used.name}, listed after it`,
        );
      }
    });
  });

  it('when modules declare error codes and permissions, then each is defined once and owned by one module', () => {
    const codes = manifests.flatMap((m) => m.errors ?? []);
    assert.equal(new Set(codes).size, codes.length, 'an error code claimed by two modules');
    for (const code of codes) assert.ok(Object.hasOwn(errorCatalog, code), code);
    const permissions = manifests.flatMap((m) => m.permissions ?? []);
    assert.equal(new Set(permissions).size, permissions.length, 'a permission claimed by two modules');
  });
});

describe('the modules as built', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it("when each module's API routes are built from its context, then each registers operations of the contract", () => {
    const paths = (loadContract().document as unknown as { paths: Record<string, Record<string, unknown>> }).paths;
    const idempotency = idempotent(t.container.services.idempotency, t.container.logger);
    for (const { manifest, context } of t.container.modules.filter(({ manifest }) => manifest.routes?.api)) {
      const registered: string[] = [];
      const record = (method: string) => (path: string) => void registered.push(`${method} ${path}`);
      const router = {
        get: record('get'),
        post: record('post'),
        put: record('put'),
        patch: record('patch'),
        delete: record('delete'),
      } as unknown as Router;
      manifest.routes!.api!({ ...context, idempotency })(router);
      assert.ok(registered.length > 0, `${manifest.name} registers no route`);
      for (const route of registered) {
        const [method, path] = route.split(' ') as [string, string];
        assert.ok(
          paths[path.replace(/:(\w+)/g, '{$1}')]?.[method],
          `${manifest.name}: ${route} is not an operation of openapi.yaml`,
        );
      }
    }
  });

  it('when the job handlers are bound, then every job type of the catalog has one', () => {
    const handlers = jobHandlers(t.container) as Record<string, unknown>;
    assert.deepEqual(Object.keys(handlers).sort(), jobTypes.map((type) => type.name).sort());
    for (const [name, handler] of Object.entries(handlers)) assert.equal(typeof handler, 'function', name);
  });

  it('when a module declares a job it binds no handler for, then binding refuses to start', () => {
    const [first] = t.container.modules;
    const broken = {
      manifest: { ...first!.manifest, name: 'broken', jobs: jobTypes.slice(0, 1), handlers: () => [] },
      context: first!.context,
    };
    assert.throws(() => jobHandlers({ modules: [broken] }), /broken declares jobs it binds no handler for/);
  });
});
