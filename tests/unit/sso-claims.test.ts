// What Okta, Microsoft Entra ID and Google really send, mapped to the spec's attribute table.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { profileFromClaims } from '../../src/modules/sso/sso-claims.ts';
import { roleFor } from '../../src/modules/sso/sso-account.service.ts';
import type { SsoConnection } from '../../src/modules/sso/sso-connection.model.ts';

const WS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';

describe('SSO claims', () => {
  it('when Okta sends firstName, lastName and groups, then they map to the profile', () => {
    const profile = profileFromClaims('00u1', {
      email: 'Ann@Okta.test',
      firstName: 'Ann',
      lastName: 'Okta',
      groups: ['Everyone', 'Staff'],
      department: 'Events',
      title: 'Coordinator',
    });
    assert.deepEqual(profile, {
      subject: '00u1',
      email: 'ann@okta.test',
      emailVerified: true,
      firstName: 'Ann',
      lastName: 'Okta',
      groups: ['Everyone', 'Staff'],
      department: 'Events',
      jobTitle: 'Coordinator',
      mfa: false,
      hostedDomain: null,
    });
  });

  it('when Entra sends claim URIs and a group overage, then groups are unknown rather than empty', () => {
    const saml = profileFromClaims('oid', {
      [`${WS}emailaddress`]: ['erin@contoso.test'],
      [`${WS}givenname`]: 'Erin',
      [`${WS}surname`]: 'Entra',
      'http://schemas.microsoft.com/claims/groups.link': 'https://graph.microsoft.com/v1.0/users/oid/getMemberObjects',
    });
    assert.equal(saml.email, 'erin@contoso.test');
    assert.equal(saml.groups, null);
    const oidc = profileFromClaims('oid', {
      email: 'erin@contoso.test',
      given_name: 'Erin',
      family_name: 'Entra',
      _claim_names: { groups: 'src1' },
      _claim_sources: { src1: { endpoint: 'https://graph.microsoft.com/…' } },
    });
    assert.equal(oidc.groups, null);
  });

  it('when Google says the e-mail is not verified (as a string), then the profile says so', () => {
    const profile = profileFromClaims('g1', { email: 'g@ws.test', email_verified: 'false', hd: 'ws.test' });
    assert.equal(profile.emailVerified, false);
    assert.equal(profile.hostedDomain, 'ws.test');
    assert.equal(profile.groups?.length, 0);
  });

  it('when a person is in several mapped groups, then the highest role wins and nothing grants a platform admin', () => {
    const connection = {
      defaultRole: 'ROLE_MEMBER',
      groupRoles: [
        { group: 'staff', role: 'ROLE_CLIENT_USER' },
        { group: 'Admins', role: 'ROLE_CLIENT_ADMIN' },
        { group: 'root', role: 'ROLE_PLATFORM_ADMIN' },
      ],
    } as unknown as SsoConnection;
    assert.equal(roleFor(connection, ['Staff', 'admins']), 'ROLE_CLIENT_ADMIN');
    assert.equal(roleFor(connection, ['staff']), 'ROLE_CLIENT_USER');
    assert.equal(roleFor(connection, ['root']), 'ROLE_MEMBER', 'a stored platform-admin mapping is ignored');
    assert.equal(roleFor(connection, []), 'ROLE_MEMBER');
  });
});
