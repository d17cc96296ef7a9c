// The contract's rules for a user's names and e-mail address (UserCreateRequest and UserUpdateRequest in
// openapi.yaml), checked again by the service: the Admin Portal's forms reach it without the contract's
// validator, and created users with a blank name or "not-an-email" as their address.
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { z } from 'zod';
import { errors } from '../../shared/errors.ts';

const name = z.string().trim().min(1, 'must not be blank').max(100, 'must be at most 100 characters');
const fields = z
  .object({
    firstName: name,
    lastName: name,
    // the contract validator's own rule (express-openapi-validator runs ajv-formats in full mode)
    email: z
      .email({ pattern: fullFormats.email as RegExp, message: 'must be an e-mail address' })
      .max(320, 'must be at most 320 characters'),
  })
  .partial();

/** Throws 400 naming each field that breaks a rule; fields left out are not checked (an update). */
export function checkUserFields(input: { firstName?: string; lastName?: string; email?: string }): void {
  const result = fields.safeParse({
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email?.trim(),
  });
  if (!result.success) {
    throw errors.validation(
      result.error.issues.map((issue) => ({ field: String(issue.path[0]), message: issue.message })),
    );
  }
}
