import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startupLine } from '../../src/shared/startup-line.ts';

describe('the start-up line', () => {
  it('when development serves the production API environment, then it says so without sounding contradictory', () => {
    assert.equal(
      startupLine(3000, 'development', 'production'),
      'Guildhall listening on http://localhost:3000 — development mode (NODE_ENV=development), serving the live API environment (APP_ENV=production, gh_live_ keys); Admin Portal at /admin, API docs at /api/docs',
    );
  });

  it('when production serves the sandbox, then both are named', () => {
    assert.match(
      startupLine(8080, 'production', 'sandbox'),
      /:8080 — production mode \(NODE_ENV=production\), serving the sandbox API environment \(APP_ENV=sandbox, gh_test_ keys\)/,
    );
  });
});
