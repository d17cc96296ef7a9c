// The parsed contract is cached as JSON named by the YAML's hash (src/http/openapi.ts): what a cached
// read returns is what parsing returns, an edited contract is parsed afresh, and a cache folder that
// cannot be written changes nothing.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { CONTRACT_PATH, parsedContract } from '../../src/http/openapi.ts';

describe('parsed contract cache', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'guildhall-contract-cache-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('when the contract is read twice, then the second read comes from the cache and equals the parsed YAML', () => {
    const yaml = readFileSync(CONTRACT_PATH, 'utf8');
    const first = parsedContract(yaml, dir);
    const files = readdirSync(dir);
    assert.equal(files.length, 1);
    assert.match(files[0]!, /^openapi-[0-9a-f]{24}\.json$/);
    const second = parsedContract(yaml, dir);
    assert.deepEqual(second, parse(yaml));
    assert.deepEqual(second, first);
  });

  it('when the contract is edited, then the edit is parsed, not the old cache, and the old entry is removed', () => {
    const before = readdirSync(dir);
    const edited = parsedContract('openapi: 3.1.0\ninfo: { title: Edited, version: "2" }\npaths: {}\n', dir) as {
      info: { title: string };
    };
    assert.equal(edited.info.title, 'Edited');
    const after_ = readdirSync(dir);
    assert.equal(after_.length, 1);
    assert.notDeepEqual(after_, before);
  });

  it('when the cache folder cannot be created, then the contract is still parsed', () => {
    // a NUL byte makes every file-system call on the path fail (tests run as root, so permissions would not)
    const unusable = path.join(dir, 'unusable\u0000folder');
    const document = parsedContract('openapi: 3.1.0\ninfo: { title: Plain, version: "1" }\npaths: {}\n', unusable) as {
      info: { title: string };
    };
    assert.equal(document.info.title, 'Plain');
    assert.equal(existsSync(path.join(dir, 'unusable')), false);
  });
});
