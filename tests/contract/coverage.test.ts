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
}

function operations(): Operation[] {
  const { document } = loadContract();
  return Object.entries(document.paths ?? {}).flatMap(([template, item]) =>
    METHODS.filter((method) => (item as Record<string, unknown>)[method]).map((method) => {
      const parts = template.split(/(\{[^}]+\})/);
      const pattern = parts
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return {
        name: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        pattern: new RegExp(`^${pattern}/?$`),
        parameters: parts.filter((p) => p.startsWith('{')).length,
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

describe('contract coverage', () => {
  it('when the contract is compared with the requests the suite made, then every operation was exercised', () => {
    const folder = process.env.GUILDHALL_TEST_REQUEST_LOG;
    assert.ok(
      folder && existsSync(folder),
      'no requests recorded: run the whole suite (node scripts/run-tests.mjs), which records them for this check',
    );
    const requests = readdirSync(folder).flatMap((file) =>
      readFileSync(path.join(folder, file), 'utf8').split('\n').filter(Boolean),
    );
    const all = operations();
    const exercised = new Set<string>();
    for (const request of requests) {
      const space = request.indexOf(' ');
      const operation = operationOf(all, request.slice(0, space), request.slice(space + 1));
      if (operation) exercised.add(operation.name);
    }
    const missing = all.map((op) => op.name).filter((name) => !exercised.has(name));
    assert.deepEqual(
      missing,
      [],
      `operations no test request reached (${requests.length} distinct requests recorded):\n${missing.join('\n')}`,
    );
  });
});
