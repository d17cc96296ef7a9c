// The module list is the one place a module is announced: every manifest must be in it, and what each
// declares must reach the catalogs derived from it.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Router } from 'express';
import { Sequelize } from 'sequelize';
import { domainEventCatalog } from '../../src/domain-events.ts';
import { boundJobs, jobTypes } from '../../src/jobs/catalog.ts';
import { idempotent } from '../../src/http/idempotency.ts';
import { loadContract } from '../../src/http/openapi.ts';
import { jobDependencies } from '../../src/jobs/registry.ts';
import { initModels } from '../../src/models.ts';
import { modules } from '../../src/modules.ts';
import { ownedUserData } from '../../src/modules/users/user-ownership.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/modules/webhooks/webhook.catalog.ts';
import { errorCatalog } from '../../src/shared/errors.ts';
import type { ModuleManifest, RouteContext } from '../../src/shared/module-manifest.ts';
import { startTestApp, type TestApp } from '../setup/test-app.ts';

const manifests: readonly ModuleManifest[] = modules;
const modulesDir = join(import.meta.dirname, '../../src/modules');
/** Folders under src/modules that are not modules: a shared layer, and pages the app mounts before every surface. */
const NOT_MODULES = ['crud', 'pages'];

describe('the module list', () => {
  it('when a folder under src/modules has a manifest file, then its exported manifest is in the list', async () => {
    const folders = readdirSync(modulesDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
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

  it('when the catalogs are derived, then they hold exactly what the manifests declare', () => {
    const models = initModels(new Sequelize('postgres://nobody@127.0.0.1:1/none', { logging: false })) as Record<string, unknown>;
    const declaredModels = manifests.flatMap((m) => Object.entries(m.models ?? {}));
    assert.deepEqual(Object.keys(models).sort(), declaredModels.map(([name]) => name).sort());
    for (const [name, model] of declaredModels) assert.equal(models[name], model, name);

    const declaredJobs = manifests.flatMap((m) => m.jobs ?? []);
    assert.deepEqual(boundJobs, declaredJobs);
    assert.deepEqual(jobTypes.map((t) => t.name), declaredJobs.map((j) => j.type.name));
    for (const job of declaredJobs) assert.equal(typeof job.deps, 'function', job.type.name);

    const declaredKinds = manifests.flatMap((m) => Object.entries(m.events ?? {}));
    assert.deepEqual(Object.keys(domainEventCatalog).sort(), declaredKinds.map(([kind]) => kind).sort());
    for (const [kind, definition] of declaredKinds) {
      assert.equal((domainEventCatalog as Record<string, unknown>)[kind], definition);
      assert.equal(Object.hasOwn(WEBHOOK_EVENT_TYPES, kind), definition.public, kind);
    }

    const owned = manifests.flatMap((m) => m.ownedUserData ?? []);
    assert.deepEqual(ownedUserData().map((d) => d.type).sort(), owned.map((d) => d.type).sort());
    assert.deepEqual(ownedUserData().map((d) => d.type), ['api_keys', 'resources', 'audit_entries', 'impersonation_sessions', 'chat_conversations']);
  });

  it('when modules declare error codes and permissions, then each is defined once and owned by one module', () => {
    const codes = manifests.flatMap((m) => m.errors ?? []);
    assert.equal(new Set(codes).size, codes.length, 'an error code claimed by two modules');
    for (const code of codes) assert.ok(Object.hasOwn(errorCatalog, code), code);
    const permissions = manifests.flatMap((m) => m.permissions ?? []);
    assert.equal(new Set(permissions).size, permissions.length, 'a permission claimed by two modules');
  });

  it('when the manifests are listed, then the API routes are collected in the list\'s order', () => {
    const withApi = manifests.filter((m) => m.routes?.api).map((m) => m.name);
    assert.deepEqual(withApi, ['health', 'auth', 'api-keys', 'users', 'activity', 'mail', 'impersonation', 'members', 'events', 'courses', 'webhooks', 'jobs-admin', 'organizations', 'resource-catalog', 'resource-reports', 'chat', 'library', 'ingestion', 'generation']);
  });
});

describe('the module list against a container', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('when each module\'s API routes are built from the container, then each registers operations of the contract', () => {
    const paths = (loadContract().document as unknown as { paths: Record<string, Record<string, unknown>> }).paths;
    const context: RouteContext = { container: t.container, idempotency: idempotent(t.container.services.idempotency, t.container.logger) };
    for (const m of manifests.filter((m) => m.routes?.api)) {
      const registered: string[] = [];
      const record = (method: string) => (path: string) => void registered.push(`${method} ${path}`);
      const router = { get: record('get'), post: record('post'), put: record('put'), patch: record('patch'), delete: record('delete') } as unknown as Router;
      m.routes!.api!(context)(router);
      assert.ok(registered.length > 0, `${m.name} registers no route`);
      for (const route of registered) {
        const [method, path] = route.split(' ') as [string, string];
        const operation = paths[path.replace(/:(\w+)/g, '{$1}')]?.[method];
        assert.ok(operation, `${m.name}: ${route} is not an operation of openapi.yaml`);
      }
    }
  });

  it('when the job handlers are bound, then every job type gets its dependencies from the container', () => {
    const deps = jobDependencies(t.container) as Record<string, unknown>;
    assert.deepEqual(Object.keys(deps).sort(), jobTypes.map((type) => type.name).sort());
    for (const [name, dep] of Object.entries(deps)) assert.ok(dep, name);
    assert.equal(deps['mail.send'], t.container.services.mail);
    assert.equal(deps['webhook.deliver'], t.container.services.webhookDispatcher);
  });
});
