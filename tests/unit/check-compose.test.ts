// scripts/check-compose.mjs (`npm run check:compose`, a CI step): the files docker-compose.yml's
// commands name must be in the image the Dockerfile builds, derived without a Docker engine.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));

async function check(composeFile: string): Promise<{ code: number; output: string }> {
  try {
    const run = promisify(execFile);
    const { stdout, stderr } = await run(process.execPath, ['scripts/check-compose.mjs', composeFile], { cwd: root });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('check-compose', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'guildhall-compose-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('when docker-compose.yml runs the compiled server and worker, then it passes', async () => {
    const { code, output } = await check('docker-compose.yml');
    assert.equal(code, 0, output);
    assert.match(output, /ok {3}app: dist\/src\/main\.js/); // the image's CMD, which the app service keeps
    assert.match(output, /ok {3}worker: dist\/src\/worker\.js/);
  });

  it('when a service runs a source file or a dev dependency, then it fails naming them', async () => {
    const compose = parse(await readFile(path.join(root, 'docker-compose.yml'), 'utf8'));
    compose.services.worker.command = ['node', '--import', 'typescript', 'src/worker.ts'];
    const file = path.join(dir, 'docker-compose.yml');
    await writeFile(file, stringify(compose));
    const { code, output } = await check(file);
    assert.equal(code, 1, output);
    assert.match(output, /worker: .* names src\/worker\.ts, which Dockerfile \(stage runtime\) leaves out/);
    assert.match(output, /worker: .* names typescript, which/); // npm ci --omit=dev leaves it out
    assert.doesNotMatch(output, /app: .* names/);
  });
});
