// The resource's text fields, from a multipart form (every value a string, repeated fields arrays) or a
// JSON body (PUT without a file). The upload surface has no contract validator, so the rules of
// openapi.yaml's ResourceUploadForm are checked here, every failing field reported at once.
import { errors, type FieldError } from '../../../shared/errors.ts';
import { ACCESS_LEVEL_INPUTS, parseAccessLevel } from '../access-levels.ts';
import { amountRefusal, currencyRefusal, priceRefusal } from '../resource-price.ts';
import { RESOURCE_STATUSES, type ResourceStatus } from '../resource.model.ts';
import type { ResourceMetadataInput } from '../resource.service.ts';
import { NOT_BLANK } from '../../../shared/not-blank.ts';
import { isUuid } from '../../../shared/uuid.ts';

export const FIELD_LIMITS = { name: 200, description: 5000, tags: 50, tag: 50, categoryIds: 50 } as const;

/** A text's length as the contract's maxLength counts it: code points, not UTF-16 units (an emoji is one). */
const characters = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

const KNOWN = new Set([
  'name',
  'description',
  'categoryIds',
  'tags',
  'accessLevel',
  'priceAmount',
  'priceCurrency',
  'status',
  'uploadId',
]);
const UPLOAD_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface ParsedResourceFields extends ResourceMetadataInput {
  uploadId?: string;
}

/** `source`: multipart values are strings (an empty one clears a list or an optional text); JSON keeps its types. */
export function parseResourceFields(body: Record<string, unknown>, source: 'multipart' | 'json'): ParsedResourceFields {
  const problems: FieldError[] = [];
  const fail = (field: string, message: string) => void problems.push({ field, message });
  const out: ParsedResourceFields = {};

  for (const key of Object.keys(body)) if (!KNOWN.has(key)) fail(key, 'is not a field of a resource');

  const single = (field: string, nullable = false): string | null | undefined => {
    const value = body[field];
    if (value === undefined) return undefined;
    if (value === null && nullable && source === 'json') return null;
    if (Array.isArray(value)) return void fail(field, 'must be sent once');
    if (typeof value !== 'string') return void fail(field, 'must be a string');
    return value;
  };
  const list = (field: string): string[] | undefined => {
    const value = body[field];
    if (value === undefined) return undefined;
    const values = Array.isArray(value) ? value : source === 'multipart' ? [value] : undefined;
    if (!values || values.some((item) => typeof item !== 'string'))
      return void fail(field, 'must be an array of strings');
    // multipart: `categoryIds=` (one empty value) clears the list
    return (values as string[]).filter((item) => !(source === 'multipart' && item === ''));
  };

  const name = single('name');
  if (typeof name === 'string') {
    const trimmed = name.trim();
    if (!NOT_BLANK.test(trimmed)) fail('name', 'must not be blank');
    else if (characters(trimmed) > FIELD_LIMITS.name) fail('name', `must be at most ${FIELD_LIMITS.name} characters`);
    else out.name = trimmed;
  }
  const description = single('description', true);
  if (description !== undefined) {
    const text = description?.trim() ?? '';
    if (characters(text) > FIELD_LIMITS.description)
      fail('description', `must be at most ${FIELD_LIMITS.description} characters`);
    else out.description = text || null;
  }
  const tags = list('tags');
  if (tags) {
    const clean = [...new Set(tags.map((tag) => tag.trim()).filter(Boolean))];
    if (clean.length > FIELD_LIMITS.tags) fail('tags', `at most ${FIELD_LIMITS.tags} tags`);
    else if (clean.some((tag) => characters(tag) > FIELD_LIMITS.tag))
      fail('tags', `each tag at most ${FIELD_LIMITS.tag} characters`);
    else out.tags = clean;
  }
  const categoryIds = list('categoryIds');
  if (categoryIds) {
    const bad = categoryIds.filter((id) => !isUuid(id));
    if (bad.length)
      fail(
        'categoryIds',
        `not category ids: ${bad
          .slice(0, 5)
          .map((id) => JSON.stringify(id.slice(0, 40)))
          .join(', ')}`,
      );
    else if (categoryIds.length > FIELD_LIMITS.categoryIds)
      fail('categoryIds', `at most ${FIELD_LIMITS.categoryIds} categories`);
    else out.categoryIds = [...new Set(categoryIds.map((id) => id.toLowerCase()))];
  }
  const level = single('accessLevel');
  if (typeof level === 'string') {
    const parsed = parseAccessLevel(level);
    if (!parsed) fail('accessLevel', `must be one of ${ACCESS_LEVEL_INPUTS.join(', ')}`);
    else out.accessLevel = parsed;
  }
  const amount = single('priceAmount', true);
  const currency = single('priceCurrency', true);
  if (amount !== undefined || currency !== undefined) {
    const clearing =
      (amount === null || amount === '') && (currency === null || currency === '' || currency === undefined);
    if (clearing) out.price = null;
    else if (amount === undefined) {
      // one half: a change keeps the stored other half (the resource service pairs them); a new resource needs both
      const refusal = currencyRefusal(currency);
      if (refusal) fail('priceCurrency', refusal);
      else out.pricePart = { currency: (currency as string).toUpperCase() };
    } else if (currency === undefined) {
      const refusal = amountRefusal(amount);
      if (refusal) fail('priceAmount', refusal);
      else out.pricePart = { amount: amount as string };
    } else {
      const refusal = priceRefusal(amount, currency);
      if (refusal) fail(...refusal);
      else out.price = { amount: amount as string, currency: (currency as string).toUpperCase() };
    }
  }
  const status = single('status');
  if (typeof status === 'string') {
    if (!(RESOURCE_STATUSES as readonly string[]).includes(status))
      fail('status', `must be one of ${RESOURCE_STATUSES.join(', ')}`);
    else out.status = status as ResourceStatus;
  }
  const uploadId = single('uploadId');
  if (typeof uploadId === 'string') {
    if (!UPLOAD_ID.test(uploadId)) fail('uploadId', 'must be the id of a finished resumable upload');
    else out.uploadId = uploadId;
  }
  if (problems.length) throw errors.validation(problems);
  return out;
}
