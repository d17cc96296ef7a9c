// The house's import rules (npm run lint:deps, in .ci/run). Type-only imports count: a cycle through
// `import type` still couples the files it joins.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle, type imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'layers-below-modules',
      severity: 'error',
      comment:
        'shared/, integrations/ and jobs/ are the platform: they never import a module. The job catalog and the ' +
        'handler registry are derived from the module list, as src/models.ts is, and may read it.',
      from: { path: '^src/(shared|integrations|jobs)/', pathNot: '^src/jobs/(catalog|registry)\\.ts$' },
      to: { path: '^src/(modules|modules\\.ts$|app\\.ts$|app-context\\.ts$|container\\.ts$)' },
    },
    {
      name: 'composition-root',
      severity: 'error',
      comment: 'Only the entry points and the test set-up build the container.',
      from: { pathNot: '^(src/main\\.ts|src/worker\\.ts|seeders/|scripts/|bench/|tests/)' },
      to: { path: '^src/container\\.ts$' },
    },
    {
      name: 'modules-not-the-list',
      severity: 'error',
      comment: 'A module names the modules it uses in its manifest; it never imports the list or the app.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(modules\\.ts|app\\.ts|app-context\\.ts|models\\.ts|domain-events\\.ts)$' },
    },
    {
      name: 'module-public-entry',
      severity: 'error',
      comment:
        "A module imports another only through its public entry, src/modules/<name>/index.ts; the rest of a " +
        'folder is its own.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
