// One renderer per format; all take the shared HttpFailure.
import type { Response } from 'express';
import { escapeHtml } from '../../shared/html.ts';
import { problemType } from '../problem.ts';
import type { ErrorRenderer, HttpFailure } from './failure.ts';

/** RFC 9457 application/problem+json: the JSON API, uploads, inbound webhooks. */
export function problemJson(baseUrl: string): ErrorRenderer {
  return (failure, req, res, options) => {
    const body = {
      type: problemType(baseUrl, failure.code),
      title: failure.title,
      status: failure.status,
      detail: failure.detail,
      instance: req.originalUrl.split('?')[0],
      code: failure.code,
      requestId: req.context?.requestId ?? 'unknown',
      ...failure.extras,
      ...(failure.fields.length ? { errors: failure.fields } : {}),
    };
    // a download that failed before its first byte had already named its file: the problem is no attachment
    res.removeHeader('Content-Disposition');
    res.status(failure.status).type('application/problem+json');
    // res.json is what the response validator watches; res.send of the text is not
    if (options?.transport) res.send(JSON.stringify(body));
    else res.json(body);
  };
}

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_MEDIA_TYPE = 'application/scim+json';

/** RFC 7644 §3.12 scimType for the 400s it names; other statuses carry none. */
function scimTypeOf(failure: HttpFailure): string | undefined {
  switch (failure.code) {
    case 'malformed_body':
      return 'invalidSyntax';
    case 'invalid_filter':
      return 'invalidFilter';
    case 'read_only_field':
      return 'mutability';
    case 'validation_failed':
      return 'invalidValue';
    case 'already_exists':
    case 'email_taken':
      return 'uniqueness';
    case 'payload_too_large':
      return 'tooMany';
    default:
      return undefined;
  }
}

/** RFC 7644 §3.12: `{schemas, status (a string), scimType?, detail}` as application/scim+json. */
export function scimError(): ErrorRenderer {
  return (failure, _req, res) => {
    const scimType = scimTypeOf(failure);
    // SCIM has no field list: what each field's message adds goes into the detail, said once
    const fields = failure.fields
      .filter((field) => !failure.detail.includes(field.message))
      .map((field) => `${field.field} ${field.message}`)
      .join('; ');
    sendScim(res.status(failure.status), {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(failure.status),
      ...(scimType ? { scimType } : {}),
      detail: fields ? `${failure.detail} (${fields})` : failure.detail,
    });
  };
}

export function sendScim(res: Response, body: unknown): void {
  res.setHeader('Content-Type', `${SCIM_MEDIA_TYPE}; charset=utf-8`);
  res.send(JSON.stringify(body));
}

const ERROR_PAGE_STYLE =
  '<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}' +
  'code{background:#f3f3f3;padding:0 .25rem}</style>';

/** Browsers on the SSO surface get a page a person can read, with the request id to quote to support. */
export function htmlErrorPage(): ErrorRenderer {
  return (failure, req, res) => {
    const requestId = req.context?.requestId ?? 'unknown';
    res
      .status(failure.status)
      .type('html')
      .send(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">' +
          `<title>${escapeHtml(failure.title)}</title>\n${ERROR_PAGE_STYLE}\n` +
          `</head><body><h1>${escapeHtml(failure.title)}</h1><p>${escapeHtml(failure.detail)}</p>\n` +
          '<p>If this keeps happening, contact your administrator and quote the reference ' +
          `<code>${escapeHtml(requestId)}</code>.</p></body></html>`,
      );
  };
}
