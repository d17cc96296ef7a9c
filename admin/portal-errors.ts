// AdminJS shows a ValidationError as field messages plus a notice; every refusal of a service
// (the same problem the API answers with) reaches the portal user that way. Successes name the record.
import { type ActionResponse, ValidationError } from 'adminjs';
import { AppError } from '../src/shared/errors.ts';

export function toPortalError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  const fields = Object.fromEntries((error.extras.errors ?? []).map((e) => [e.field, { message: e.message }]));
  return new ValidationError(fields, { message: `${error.title}: ${error.message}`, type: error.code });
}

/** Runs a service call, translating its refusals. */
export async function refusalsAsNotices<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toPortalError(error);
  }
}

/** For custom actions: the notice AdminJS shows for a refusal. */
export function noticeOf(error: unknown): { message: string; type: 'error' } {
  if (error instanceof AppError) return { message: `${error.title}: ${error.message}`, type: 'error' };
  throw error;
}

/** The notice of a validation refusal whose messages the form shows under their fields. */
export const FIELDS_NEED_ATTENTION = 'Some fields need attention: see the message under each.';

/**
 * For forms that show each field's message under it: those messages, and a notice that points there
 * (the API's detail names the fields by their code names, `settings.idpSsoUrl`).
 */
export function formRefusalOf(error: unknown): {
  errors: Record<string, string>;
  notice: { message: string; type: 'error' };
} {
  if (!(error instanceof AppError)) throw error;
  const errors = Object.fromEntries((error.extras.errors ?? []).map((e) => [e.field, e.message]));
  const underFields = error.code === 'validation_failed' && Object.keys(errors).length > 0;
  return {
    errors,
    notice: underFields ? { message: FIELDS_NEED_ATTENTION, type: 'error' } : noticeOf(error),
  };
}

/**
 * An `after` hook of a resource's new and edit actions: the success names the record ("User
 * nina@x.org created") where AdminJS said "Successfully created a new record".
 */
export function namedSuccess(noun: string, titleProperty: string) {
  const done: Record<string, string> = { successfullyCreated: 'created', successfullyUpdated: 'saved' };
  return async (response: ActionResponse): Promise<ActionResponse> => {
    const { notice, record } = response;
    const verb = notice?.type === 'success' ? done[notice.message] : undefined;
    if (notice && verb) notice.message = `${noun} ${String(record?.params?.[titleProperty] ?? '')} ${verb}`;
    return response;
  };
}
