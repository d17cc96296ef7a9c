// AdminJS shows a ValidationError as field messages plus a notice; every refusal of a service
// (the same problem the API answers with) reaches the portal user that way.
import { ValidationError } from 'adminjs';
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
