// The USE-lite embedder loads TF.js's WASM backend, whose Emscripten glue adds process handlers that
// rethrow: with them, any unhandled rejection in the process ended it with exit code 7 instead of
// reaching the service's own handler. Checked in a child process, since the test runner watches
// unhandled rejections itself.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

const embedder = fileURLToPath(new URL('../../src/integrations/embeddings/use-lite.embedder.ts', import.meta.url));

const SCRIPT = `
const { UseLiteEmbedder } = await import(${JSON.stringify(embedder)});
process.on('unhandledRejection', (reason) => console.log('logged by the service:', reason.message));
const [vector] = await new UseLiteEmbedder().embed(['a sentence to embed']);
console.log('dimensions', vector.length);
Promise.reject(new Error('a request failed without a catch'));
setTimeout(() => console.log('still serving'), 100);
`;

describe('USE-lite embedder', () => {
  it('when the model has loaded and a promise rejects unhandled, then the process handler logs it and the process goes on', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), '--input-type=module', '-e', SCRIPT],
      { timeout: 60_000 },
    );
    assert.match(stdout, /dimensions 512/);
    assert.match(stdout, /logged by the service: a request failed without a catch/);
    assert.match(stdout, /still serving/);
  });
});
