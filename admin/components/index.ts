// Custom React components of the Admin Portal, bundled by AdminJS (in ADMIN_JS_TMP_DIR).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ComponentLoader } from 'adminjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// the sources, or the compiled files when running from the tsc build (where the image ships a prebuilt bundle)
const source = (name: string) =>
  path.join(here, existsSync(path.join(here, `${name}.tsx`)) ? `${name}.tsx` : `${name}.js`);

export function loadComponents(loader: ComponentLoader) {
  // login with a one-time code, the impersonation banner above every page, and breadcrumbs that name a
  // resource's own actions as its translations do
  loader.override('Login', source('Login'));
  loader.override('TopBar', source('TopBar'));
  loader.override('Breadcrumbs', source('Breadcrumbs'));
  // every date-time in one format with its zone, date filters that send the day picked, a filter
  // drawer that closes once applied, and one notice at a time
  loader.override('DefaultDatetimeListProperty', source('PortalDate'));
  loader.override('DefaultDatetimeShowProperty', source('PortalDate'));
  loader.override('DefaultDatetimeFilterProperty', source('PortalDateFilter'));
  loader.override('FilterDrawer', source('FilterDrawer'));
  loader.override('NoticeBox', source('NoticeBox'));
  return {
    DeleteUser: loader.add('DeleteUser', source('DeleteUser')),
    ImpersonateUser: loader.add('ImpersonateUser', source('ImpersonateUser')),
    ExportUsers: loader.add('ExportUsers', source('ExportUsers')),
    // the dashboard and the platform resources' views
    Dashboard: loader.add('Dashboard', source('Dashboard')),
    ChangePlan: loader.add('ChangePlan', source('ChangePlan')),
    RecordLink: loader.add('RecordLink', source('RecordLink')),
    JsonValue: loader.add('JsonValue', source('JsonValue')),
    MailPreview: loader.add('MailPreview', source('MailPreview')),
    ConfirmAction: loader.add('ConfirmAction', source('ConfirmAction')),
    // Platform Settings > Integrations: the identity service's settings
    IdentityServiceSettings: loader.add('IdentityServiceSettings', source('IdentityServiceSettings')),
    // Platform Settings > Directory Sync, and a directory's token actions and values
    DirectorySync: loader.add('DirectorySync', source('DirectorySync')),
    DirectoryToken: loader.add('DirectoryToken', source('DirectoryToken')),
    DirectoryValue: loader.add('DirectoryValue', source('DirectoryValue')),
    TextList: loader.add('TextList', source('TextList')),
    TestResult: loader.add('TestResult', source('TestResult')),
    OptionalValue: loader.add('OptionalValue', source('OptionalValue')),
    CodeLabel: loader.add('CodeLabel', source('CodeLabel')),
    // Platform Settings > CRM: each organization's HubSpot status, errors with Retry, mapping and runs
    CrmSync: loader.add('CrmSync', source('CrmSync')),
    // the SSO connections' New SSO connection and Edit form, and their status, last test, settings and group → role
    SsoConnectionForm: loader.add('SsoConnectionForm', source('SsoConnectionForm')),
    SsoValue: loader.add('SsoValue', source('SsoValue')),
    // the users resource: list, forms, badges, dates, filters, permanent delete, activity
    UsersList: loader.add('UsersList', source('UsersList')),
    UserEdit: loader.add('UserEdit', source('UserEdit')),
    UserShow: loader.add('UserShow', source('UserShow')),
    UserFormField: loader.add('UserFormField', source('UserFormField')),
    UserBadge: loader.add('UserBadge', source('UserBadge')),
    UserDate: loader.add('UserDate', source('UserDate')),
    MultiValueFilter: loader.add('MultiValueFilter', source('MultiValueFilter')),
    PurgeUser: loader.add('PurgeUser', source('PurgeUser')),
    UserActivity: loader.add('UserActivity', source('UserActivity')),
  };
}

export type PortalComponents = ReturnType<typeof loadComponents>;

/** A column holding a code, shown in words ("read_only" as "Read only"); filters keep the codes. */
export const codeLabels = (components: PortalComponents) => ({
  components: { list: components.CodeLabel, show: components.CodeLabel },
});
