// The contract's rules for a user's fields (UserCreateRequest and UserUpdateRequest in openapi.yaml),
// checked again by the service: the Admin Portal's forms reach it without the contract's validator, and
// created users with a blank name, "not-an-email" as their address, a 3-character password, a 60-digit
// phone, a made-up role (a 500 from the database) or a suspended status on creation (stored as active).
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { z } from 'zod';
import { ROLES } from '../../shared/access/roles.ts';
import { errors } from '../../shared/errors.ts';
import { NOT_BLANK } from '../../shared/not-blank.ts';

/** An address the contract and the users service accept (ajv-formats' full e-mail format, at most 320). */
export const isEmailAddress = (value: string): boolean =>
  value.length <= 320 && (fullFormats.email as RegExp).test(value);

const name = z.string().trim().regex(NOT_BLANK, 'must not be blank').max(100, 'must be at most 100 characters');
const oneOf = (values: readonly [string, ...string[]]) =>
  z.enum(values, { message: `must be one of ${values.join(', ')}` });
const common = {
  firstName: name,
  lastName: name,
  // the contract validator's own rule (express-openapi-validator runs ajv-formats in full mode)
  email: z
    .email({ pattern: fullFormats.email as RegExp, message: 'must be an e-mail address' })
    .max(320, 'must be at most 320 characters'),
  phone: z.string().max(40, 'must be at most 40 characters').nullable(),
  role: oneOf(ROLES),
};
const FIELDS = {
  create: z
    .object({
      ...common,
      status: oneOf(['active', 'pending']),
      password: z.string().min(12, 'must be at least 12 characters').max(1024, 'must be at most 1024 characters'),
    })
    .partial(),
  // pending too: the portal's edit form sends a pending user's status unchanged (the contract refuses it)
  update: z.object({ ...common, status: oneOf(['active', 'inactive', 'suspended', 'pending']) }).partial(),
};

interface UserFields {
  firstName?: string;
  lastName?: string;
  email?: string;
  phone?: string | null;
  role?: string;
  status?: string;
  password?: string;
}

/** What a new user needs, as the contract's UserCreateRequest requires it (the portal's form may omit any). */
const REQUIRED_ON_CREATE = ['firstName', 'lastName', 'email', 'role'] as const;

/**
 * Throws 400 naming each field that breaks a rule, every one at once; on an update, fields left out are
 * not checked. A missing required field of a creation was a database message ("User.role cannot be
 * null") or a placement check about an undefined role.
 */
export function checkUserFields(input: UserFields, operation: 'create' | 'update'): void {
  const missing =
    operation === 'create' ? REQUIRED_ON_CREATE.filter((field) => input[field] == null || input[field] === '') : [];
  const result = FIELDS[operation].safeParse({ ...input, email: input.email?.trim() });
  const problems = [
    ...missing.map((field) => ({ field, message: 'is required' })),
    ...(result.error?.issues ?? [])
      .map((issue) => ({ field: String(issue.path[0]), message: issue.message }))
      .filter((problem) => !(missing as readonly string[]).includes(problem.field)),
  ];
  if (problems.length) throw errors.validation(problems);
}
