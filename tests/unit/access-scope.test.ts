import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Op } from 'sequelize';
import type { Actor } from '../../src/shared/access/actor.ts';
import type { Role } from '../../src/shared/access/roles.ts';
import { scopeFor } from '../../src/shared/access/scope.ts';
import { AppError } from '../../src/shared/errors.ts';
import { Binds } from '../../src/shared/sql.ts';

const user = (role: Role, organizationId: string | null = 'org-1'): Actor => ({
  type: 'user',
  id: 'u-1',
  organizationId,
  role,
  mfaVerified: true,
});
const apiKey: Actor = { type: 'api_key', id: 'k-1', organizationId: 'org-1', role: 'API_KEY', mfaVerified: true };

describe('access scope', () => {
  it('when a member reads events, then the three forms agree: tenant and published or cancelled only', () => {
    const scope = scopeFor(user('ROLE_MEMBER'), 'event', 'read');
    const binds = new Binds();
    assert.equal(scope.sql(binds, 'e'), 'e.organization_id = $1 AND e.status = ANY($2::text[])');
    assert.deepEqual(binds.values, ['org-1', ['published', 'cancelled']]);
    assert.deepEqual(scope.where({ id: 'x' }), {
      id: 'x',
      organizationId: 'org-1',
      status: { [Op.in]: ['published', 'cancelled'] },
    });
    assert.equal(scope.allows({ organizationId: 'org-1', status: 'published' }), true);
    assert.equal(scope.allows({ organizationId: 'org-1', status: 'cancelled' }), true);
    assert.equal(scope.allows({ organizationId: 'org-1', status: 'draft' }), false);
    assert.equal(scope.allows({ organizationId: 'org-2', status: 'published' }), false);
  });

  it('when sponsors read courses, then only published ones are in scope', () => {
    for (const role of ['ROLE_SPONSOR_USER', 'ROLE_SPONSOR_ADMIN'] as const) {
      const scope = scopeFor(user(role), 'course', 'read');
      assert.equal(scope.allows({ organizationId: 'org-1', status: 'archived' }), false);
      assert.equal(scope.allows({ organizationId: 'org-1', status: 'published' }), true);
    }
  });

  it('when staff or an API key read events, then every status of their organization is in scope', () => {
    for (const actor of [user('ROLE_CLIENT_USER'), user('ROLE_CLIENT_ADMIN'), apiKey]) {
      const scope = scopeFor(actor, 'event', 'read');
      const binds = new Binds();
      assert.equal(scope.sql(binds), 'organization_id = $1');
      assert.equal(scope.allows({ organizationId: 'org-1', status: 'draft' }), true);
    }
  });

  it('when a member asks to read members or write events, then the permission is refused before any SQL', () => {
    assert.throws(
      () => scopeFor(user('ROLE_MEMBER'), 'member', 'read'),
      (e: unknown) => e instanceof AppError && e.status === 403,
    );
    assert.throws(
      () => scopeFor(user('ROLE_MEMBER'), 'event', 'write'),
      (e: unknown) => e instanceof AppError && e.status === 403,
    );
  });

  it('when a platform admin reads a platform-wide kind, then no tenant is required and the predicate is TRUE', () => {
    const scope = scopeFor(user('ROLE_PLATFORM_ADMIN', null), 'user', 'read');
    assert.equal(scope.organizationId, null);
    assert.equal(scope.sql(new Binds(), 'u'), 'TRUE');
    assert.throws(
      () => scopeFor(user('ROLE_PLATFORM_ADMIN', null), 'member', 'read'),
      (e: unknown) => e instanceof AppError && e.status === 422,
    );
  });
});
