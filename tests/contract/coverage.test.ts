// Every operation in openapi.yaml must be exercised by the suite: some test app answered a request
// with that method to a path the operation's template matches (tests/setup/request-log.ts records
// them). scripts/run-tests.mjs runs this file after every other one, with their records, and only in
// a run of the whole suite (or when it is named).
// test-runner: after the others
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadContract } from '../../src/http/openapi.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;

interface Operation {
  name: string;
  method: string;
  pattern: RegExp;
  parameters: number;
  /** The statuses its responses declare ('default' answers any). */
  statuses: Set<string>;
  /** The media types each declared status answers with (none: a response without a body). */
  mediaTypes: Map<string, string[]>;
}

/** A response object, its `$ref` followed. */
function resolved(document: object, response: { $ref?: string; content?: object }): { content?: object } {
  if (!response.$ref) return response;
  const target = response.$ref
    .slice(2)
    .split('/')
    .reduce(
      (node: Record<string, unknown>, key) => node[key] as Record<string, unknown>,
      document as Record<string, unknown>,
    );
  return resolved(document, target as { $ref?: string; content?: object });
}

function operations(): Operation[] {
  const { document } = loadContract();
  return Object.entries(document.paths ?? {}).flatMap(([template, item]) =>
    METHODS.filter((method) => (item as Record<string, unknown>)[method]).map((method) => {
      const parts = template.split(/(\{[^}]+\})/);
      const pattern = parts
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      const responses = ((item as Record<string, { responses?: object }>)[method]?.responses ?? {}) as Record<
        string,
        object
      >;
      return {
        name: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        pattern: new RegExp(`^${pattern}/?$`),
        parameters: parts.filter((p) => p.startsWith('{')).length,
        statuses: new Set(Object.keys(responses)),
        mediaTypes: new Map(
          Object.entries(responses).map(([status, response]) => [
            status,
            Object.keys(resolved(document, response).content ?? {}),
          ]),
        ),
      };
    }),
  );
}

/** The operation a request reached: of the templates it matches, the most literal one (/members/export before /members/{id}). */
function operationOf(all: Operation[], method: string, url: string): Operation | undefined {
  let decoded = url;
  try {
    decoded = decodeURI(url);
  } catch {
    // a malformed escape stays as sent
  }
  const matching = all.filter((op) => op.method === method && (op.pattern.test(url) || op.pattern.test(decoded)));
  return matching.sort((a, b) => a.parameters - b.parameters)[0];
}

/** "METHOD /path STATUS MEDIA-TYPE" lines, as tests/setup/request-log.ts writes them. */
function recordedRequests(): Array<{ method: string; url: string; status: string; mediaType: string }> {
  const folder = process.env.GUILDHALL_TEST_REQUEST_LOG;
  assert.ok(
    folder && existsSync(folder),
    'no requests recorded: run the whole suite (node scripts/run-tests.mjs), which records them for this check',
  );
  return readdirSync(folder)
    .flatMap((file) => readFileSync(path.join(folder, file), 'utf8').split('\n').filter(Boolean))
    .map((line) => {
      const [method, ...rest] = line.split(' ');
      const mediaType = rest.pop()!;
      const status = rest.pop()!;
      return { method: method!, url: rest.join(' '), status, mediaType };
    });
}

/**
 * Statuses any operation may answer without declaring them: the transport limits of the contract's
 * introduction (408, 413 on the declared length, 431).
 */
const TRANSPORT_STATUSES = new Set(['408', '413', '431']);

describe('contract coverage', () => {
  it('when the contract is compared with the requests the suite made, then every operation was exercised', () => {
    const requests = recordedRequests();
    const all = operations();
    const exercised = new Set<string>();
    for (const request of requests) {
      const operation = operationOf(all, request.method, request.url);
      if (operation) exercised.add(operation.name);
    }
    const missing = all.map((op) => op.name).filter((name) => !exercised.has(name));
    assert.deepEqual(
      missing,
      [],
      `operations no test request reached (${requests.length} distinct requests recorded):\n${missing.join('\n')}`,
    );
  });

  it('when the statuses the suite received are compared with the contract, then each was declared by its operation', () => {
    const all = operations();
    const undeclared = new Set<string>();
    for (const { method, url, status } of recordedRequests()) {
      // HEAD is answered as the GET (src/http/openapi.ts headAsGet)
      const operation = operationOf(all, method === 'HEAD' ? 'GET' : method, url);
      if (!operation || TRANSPORT_STATUSES.has(status)) continue;
      if (!operation.statuses.has(status) && !operation.statuses.has('default'))
        undeclared.add(`${operation.name} answered ${status}`);
    }
    assert.deepEqual([...undeclared].sort(), [], 'statuses the contract does not declare for the operation');
  });

  it('when the media types the suite received are compared with the contract, then each was declared for its status', () => {
    const all = operations();
    const undeclared = new Set<string>();
    for (const { method, url, status, mediaType } of recordedRequests()) {
      const operation = operationOf(all, method === 'HEAD' ? 'GET' : method, url);
      if (!operation || TRANSPORT_STATUSES.has(status) || mediaType === '-') continue;
      const declared = operation.mediaTypes.get(status) ?? operation.mediaTypes.get('default');
      // a redirect's or a 304's small note is not a body a client reads
      if (!declared || (declared.length === 0 && /^3/.test(status))) continue;
      const matches = declared.some(
        (type) =>
          type === mediaType || type === '*/*' || (type.endsWith('/*') && mediaType.startsWith(type.slice(0, -1))),
      );
      if (!matches)
        undeclared.add(
          `${operation.name} answered ${status} as ${mediaType} (declared: ${declared.join(', ') || 'no body'})`,
        );
    }
    assert.deepEqual([...undeclared].sort(), [], 'media types the contract does not declare for the status');
  });
});
