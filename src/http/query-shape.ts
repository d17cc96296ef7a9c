// The shape of a request's query, checked before the contract's validator sees it: what qs and the
// validator would otherwise turn into a 500 (a bracketed object where a value is declared), read as
// JavaScript reads numbers (a space is 0), or drop silently (a `__proto__` key).
import type { RequestHandler } from 'express';
import { AppError, errors } from '../shared/errors.ts';
import { operationOf, type Contract, type ParameterObject } from './openapi.ts';

type SchemaObject = { type?: string | string[]; properties?: Record<string, SchemaObject>; $ref?: string };
const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/**
 * The validator coerces a query's numbers as JavaScript does: a space is 0, `0x10` is 16, `1e2` is
 * 100. Before it runs, a number or integer the contract declares (a plain parameter, or a property of
 * a bracketed filter) must be written as a plain decimal; otherwise the field is named.
 */
function checkNumberText(
  value: unknown,
  schema: SchemaObject | undefined,
  field: string,
  refuse: (field: string, message: string) => never,
): void {
  const types = [schema?.type ?? []].flat();
  const text = types.includes('integer') ? INTEGER_TEXT : types.includes('number') ? NUMBER_TEXT : undefined;
  if (!text) return;
  for (const item of [value].flat()) {
    if (typeof item === 'string' && !text.test(item))
      refuse(field, types.includes('integer') ? 'must be a whole number' : 'must be a decimal number');
  }
}

/** A key, or a bracketed part of one, named `__proto__`: `__proto__[x]=1`, `order[__proto__]=asc`. */
const PROTOTYPE_KEY = /(?:^|\[)__proto__(?:[[\]]|$)/;

/**
 * The query parser (qs) drops a `__proto__` key before any check sees it, so it would vanish
 * silently instead of being refused as the unknown parameter it is. Read from the raw query.
 */
function refusePrototypeKeys(rawQuery: string): void {
  for (const key of new URLSearchParams(rawQuery).keys())
    if (PROTOTYPE_KEY.test(key))
      throw new AppError('invalid_filter', `Unknown query parameter "${key}"`, {
        errors: [{ field: key, message: 'is not a parameter of this operation' }],
      });
}

/**
 * qs turns `status[x]=active` into an object; the validator then calls `.split` on it and fails
 * with a 500. A parameter the contract declares as a string or a list of strings (anything but a
 * deepObject) sent in bracketed form is a 400 naming the parameter as sent. Numbers are checked as
 * written (checkNumberText).
 */
export function rejectMisshapenQuery(contract: Contract): RequestHandler {
  const parameters = (contract.document.components?.parameters ?? {}) as Record<string, ParameterObject>;
  const schemas = (contract.document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  const resolve = (parameter: ParameterObject | { $ref: string }): ParameterObject | undefined =>
    '$ref' in parameter ? parameters[parameter.$ref.replace('#/components/parameters/', '')] : parameter;
  const schemaOf = (schema: SchemaObject | undefined): SchemaObject | undefined =>
    schema?.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  const refuseValue = (field: string, message: string): never => {
    throw errors.validation([{ field, message }]);
  };
  const refuseFilter = (field: string, message: string): never => {
    throw errors.invalidFilter(field, message);
  };
  return (req, _res, next) => {
    const operation = operationOf(req);
    const at = req.url.indexOf('?');
    if (!operation || at === -1) return next();
    refusePrototypeKeys(req.url.slice(at + 1));
    if (!operation.parameters) return next();
    const query = req.query as Record<string, unknown>;
    for (const declared of operation.parameters) {
      const parameter = resolve(declared);
      if (parameter?.in !== 'query' || query[parameter.name] === undefined) continue;
      const schema = schemaOf(parameter.schema as SchemaObject | undefined);
      if (parameter.style === 'deepObject' || schema?.type === 'object') {
        const bracketed = query[parameter.name];
        if (bracketed && typeof bracketed === 'object' && !Array.isArray(bracketed))
          for (const [key, value] of Object.entries(bracketed))
            checkNumberText(value, schemaOf(schema?.properties?.[key]), `${parameter.name}[${key}]`, refuseFilter);
        continue;
      }
      checkNumberText(query[parameter.name], schema, parameter.name, refuseValue);
      const value = query[parameter.name];
      const scalar = (item: unknown) => typeof item === 'string';
      if (value === undefined || scalar(value) || (Array.isArray(value) && value.every(scalar))) continue;
      const field = `${parameter.name}${Object.keys(value as object)
        .map((key) => `[${key}]`)
        .join('')}`;
      throw new AppError(
        'invalid_filter',
        `Query parameter "${parameter.name}" takes a value, not a bracketed object (got ${field})`,
        {
          errors: [{ field, message: 'must be a string or repeated value, not a bracketed object' }],
        },
      );
    }
    next();
  };
}
