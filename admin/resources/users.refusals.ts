// A service refusal on the users resource, in the portal's words (no API paths, no ROLE_ constants),
// and, for the forms, the field it belongs to: AdminJS treats an update without field errors as a
// success, so every refusal is pinned to a field (or to `form`) to keep the form open and red.
import { ValidationError } from 'adminjs';
import { ROLE_LABELS, STATUS_LABELS } from '../../src/modules/users/user.labels.ts';
import { AppError } from '../../src/shared/errors.ts';
import { FIELDS_NEED_ATTENTION } from '../portal-errors.ts';

export interface PortalRefusal {
  message: string;
  /** The form field the refusal belongs to; `form` when it belongs to none. */
  field: string;
}

const readable = (text: string) =>
  text
    .replace(/ROLE_[A-Z_]+/g, (role) => ROLE_LABELS[role as keyof typeof ROLE_LABELS] ?? role)
    .replace(/\b(active|inactive|suspended|pending)\b/g, (status) =>
      STATUS_LABELS[status as keyof typeof STATUS_LABELS].toLowerCase(),
    );

/** When the next impersonation can start, from the refusal's Retry-After, as "HH:MM UTC". */
function nextSlot(error: AppError, now: Date): string {
  const seconds = Number(error.extras.headers?.['Retry-After'] ?? 0);
  const at = new Date(now.getTime() + seconds * 1000);
  return `${at.toISOString().slice(11, 16)} UTC`;
}

export function portalRefusal(error: AppError, now: Date = new Date()): PortalRefusal {
  switch (error.code) {
    case 'cannot_modify_self':
      return {
        field: 'role',
        message: 'You cannot change your own role or status: another platform admin must do it.',
      };
    case 'cannot_delete_self':
      return { field: 'form', message: 'Cannot delete own account: another platform admin must do it.' };
    case 'confirmation_required':
      return /Permanent/.test(error.message)
        ? {
            field: 'confirmEmail',
            message: "Type the user's e-mail address to confirm the permanent deletion.",
          }
        : {
            field: 'confirmPrivilegeChange',
            message: `${readable(error.message.replace(/ needs confirmPrivilegeChange: true$/, ''))} needs the confirmation: tick "Confirm raising the role" and save again.`,
          };
    case 'mfa_required':
      return {
        field: 'form',
        message:
          'This needs MFA: enrol an authenticator app with "Enrol in MFA" on the dashboard, then try again. ' +
          'Enrolled already? Log out and log in again with its one-time code.',
      };
    case 'impersonation_forbidden':
      return {
        field: 'form',
        message:
          'This user cannot be impersonated: platform admins and users of your own privilege or higher are excluded.',
      };
    case 'already_impersonating':
      return {
        field: 'form',
        message:
          'You already have an impersonation session open: end it with "Exit impersonation" in the banner at the top first.',
      };
    case 'impersonation_limit':
      return {
        field: 'form',
        message: `${error.message}: you have reached the limit. The next session can start at ${nextSlot(error, now)}.`,
      };
    case 'not_found':
      return { field: 'form', message: 'This user no longer exists.' };
    case 'validation_failed':
      // each field's own message is under it; the notice named fields by their code names
      return {
        field: error.extras.errors?.[0]?.field ?? 'form',
        message: FIELDS_NEED_ATTENTION,
      };
    default:
      return {
        field: error.extras.errors?.[0]?.field ?? 'form',
        message: `${error.title}: ${readable(error.message)}`,
      };
  }
}

/** For the record forms (new, edit): field errors plus the notice, so AdminJS keeps the form open. */
export function toUserFormError(error: unknown, now?: Date): unknown {
  if (!(error instanceof AppError)) return error;
  const fieldErrors = Object.fromEntries(
    (error.extras.errors ?? []).map((e) => [e.field, { message: readable(e.message), type: error.code }]),
  );
  const refusal = portalRefusal(error, now);
  if (!Object.keys(fieldErrors).length) fieldErrors[refusal.field] = { message: refusal.message, type: error.code };
  return new ValidationError(fieldErrors, { message: refusal.message, type: error.code });
}

export async function userFormRefusals<T>(work: () => Promise<T>, now?: () => Date): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toUserFormError(error, now?.());
  }
}

/** For custom actions: the notice AdminJS shows for a refusal. */
export function userNotice(error: unknown, now?: Date): { message: string; type: 'error' } {
  if (error instanceof AppError) return { message: portalRefusal(error, now).message, type: 'error' };
  throw error;
}
