// Where the portal shows a record of each kind an audit entry names (its actor_type / target_type),
// for the links of the audit log and the dashboard. Bundled for the browser: imports nothing.
export const RESOURCE_OF_KIND: Record<string, string> = {
  user: 'users',
  organization: 'organizations',
  api_key: 'api_keys',
  webhook_subscription: 'webhook_subscriptions',
  impersonation_session: 'impersonation_sessions',
  directory: 'directories',
};
