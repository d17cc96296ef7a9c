// The SSO protocols' names, as the portal shows them: in the connection form (bundled for the browser)
// and in the SSO connections list and page (AdminJS labels, on the server). Imports nothing.
export const PROTOCOL_NAMES = {
  saml: 'SAML 2.0',
  oidc: 'OpenID Connect',
  identity_service: 'Identity service',
} as const;

export type Protocol = keyof typeof PROTOCOL_NAMES;
