// Every operation in openapi.yaml must be exercised by at least one test: a request with that method
// to that path (path parameters may be literals or template expressions) must appear in tests/.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadContract } from '../../src/http/openapi.ts';

const testsDir = fileURLToPath(new URL('../', import.meta.url));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function testSources(dir: string): string {
  return readdirSync(dir)
    .map((name) => path.join(dir, name))
    .map((file) => (statSync(file).isDirectory() ? testSources(file) : file.endsWith('.ts') && !file.includes('coverage.test') ? readFileSync(file, 'utf8') : ''))
    .join('\n');
}

function operationPattern(method: string, template: string): RegExp {
  const pathPattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '(?:\\$\\{[^}]+\\}|[^/\'"`?]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`\\.${method}\\(\\s*['"\`]${pathPattern}(?:[?'"\`])`);
}

describe('contract coverage', () => {
  it('when the contract is compared with the tests, then every operation is exercised', () => {
    const sources = testSources(testsDir);
    const { document } = loadContract();
    const missing: string[] = [];
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        if (!(item as Record<string, unknown>)[method]) continue;
        if (!operationPattern(method, template).test(sources)) missing.push(`${method.toUpperCase()} ${template}`);
      }
    }
    assert.deepEqual(missing, [], `operations without a test:\n${missing.join('\n')}`);
  });
});
