// What an IdP asserts about a person, reduced to the spec's attribute table (email, given/family name,
// groups, department, job title). Providers name these differently: Microsoft Entra ID sends claim URIs
// (and, past 150 SAML / 200 JWT groups, a "group overage" link instead of the groups), Okta sends
// `groups` and often `firstName`/`lastName`, Google sends `hd` and `email_verified` and no groups.

export interface SsoProfile {
  /** The IdP's stable id for the person (OIDC `sub`, SAML NameID, the identity service's profile id). */
  subject: string;
  email: string;
  /** False only when the IdP says so (Google's `email_verified: false`). */
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
  /**
   * Group names or ids as sent; null when the IdP could not send them (Entra's group overage), so the
   * roles already held are kept rather than lowered to the default.
   */
  groups: string[] | null;
  department: string | null;
  jobTitle: string | null;
  /** The IdP asserted a multi-factor authentication (OIDC `amr`, SAML authentication context). */
  mfa: boolean;
  /** Google Workspace's hosted domain, when sent. */
  hostedDomain: string | null;
}

type Claims = Record<string, unknown>;

const WS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';
const MS = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/';
const MS_CLAIMS = 'http://schemas.microsoft.com/claims/';
const SAML_ATTR = 'urn:oid:';

/** The names each attribute goes by, in the order they are tried. */
const NAMES = {
  email: [
    'email',
    'mail',
    'emailAddress',
    `${WS}emailaddress`,
    `${SAML_ATTR}0.9.2342.19200300.100.1.3`,
    'upn',
    `${WS}upn`,
  ],
  firstName: ['given_name', 'firstName', 'givenName', `${WS}givenname`, `${SAML_ATTR}2.5.4.42`],
  lastName: ['family_name', 'lastName', 'surname', 'sn', `${WS}surname`, `${SAML_ATTR}2.5.4.4`],
  groups: ['groups', 'memberOf', `${MS}groups`, `${MS}role`, 'roles'],
  department: ['department', `${MS_CLAIMS}department`, `${WS}department`],
  jobTitle: ['job_title', 'jobTitle', 'title', `${MS_CLAIMS}jobtitle`, `${WS}jobtitle`],
} as const;

/** Authentication methods and contexts that mean more than a password. */
const MFA_AMR = new Set(['mfa', 'otp', 'hwk', 'swk', 'sms', 'fido', 'face', 'fpt', 'pop', 'sc']);
const MFA_CONTEXT = /multi.?factor|multipleauthn|mfa|TimeSyncToken|MobileTwoFactor|Smartcard/i;

const first = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value);

function text(claims: Claims, names: readonly string[]): string | null {
  for (const name of names) {
    const value = first(claims[name]);
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return null;
}

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  if (typeof value === 'string' && value !== '') return [value];
  return [];
}

/** Entra's group overage: the token carries a link to Microsoft Graph instead of the groups. */
function hasGroupOverage(claims: Claims): boolean {
  const claimNames = claims._claim_names as Record<string, unknown> | undefined;
  return (
    (claimNames !== undefined && typeof claimNames === 'object' && 'groups' in claimNames) ||
    claims[`${MS_CLAIMS}groups.link`] !== undefined ||
    claims.hasgroups === true ||
    claims.hasgroups === 'true'
  );
}

function groupsOf(claims: Claims): string[] | null {
  if (hasGroupOverage(claims)) return null;
  const found = NAMES.groups.flatMap((name) => list(claims[name]));
  return [...new Set(found)];
}

function mfaOf(claims: Claims, authnContexts: readonly string[]): boolean {
  const amr = [...list(claims.amr), ...list(claims[`${MS_CLAIMS}authnmethodsreferences`])];
  return (
    amr.some((method) => MFA_AMR.has(method) || MFA_CONTEXT.test(method)) ||
    authnContexts.some((context) => MFA_CONTEXT.test(context))
  );
}

function booleanClaim(value: unknown): boolean | null {
  const v = first(value);
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  return null;
}

/**
 * Maps an IdP's claims (OIDC ID token and userinfo merged, or SAML attributes) to a profile.
 * `subject` is the IdP's id for the person; `authnContexts` are SAML AuthnContextClassRefs.
 */
export function profileFromClaims(subject: string, claims: Claims, authnContexts: readonly string[] = []): SsoProfile {
  return {
    subject,
    email: (text(claims, NAMES.email) ?? '').toLowerCase(),
    emailVerified: booleanClaim(claims.email_verified) !== false,
    firstName: text(claims, NAMES.firstName),
    lastName: text(claims, NAMES.lastName),
    groups: groupsOf(claims),
    department: text(claims, NAMES.department),
    jobTitle: text(claims, NAMES.jobTitle),
    mfa: mfaOf(claims, authnContexts),
    hostedDomain: text(claims, ['hd']),
  };
}
