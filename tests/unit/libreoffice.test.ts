// LIBREOFFICE_PATH: the configured binary is the one run (with a private profile, to PDF, in its own
// folder); one that cannot be run counts as absent. A shell script stands in for soffice here: it
// records its arguments and writes the "rendered" PDF where LibreOffice would.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { renderWithLibreOffice } from '../../src/integrations/documents/libreoffice.ts';

describe('LibreOffice rendering', () => {
  let dir: string;
  let fake: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'guildhall-soffice-test-'));
    fake = path.join(dir, 'fake-soffice');
    await writeFile(
      fake,
      `#!/bin/sh\necho "$@" > "${dir}/args"\nwhile [ "$1" != "--outdir" ]; do shift; done\nprintf '%%PDF-rendered' > "$2/document.pdf"\n`,
    );
    await chmod(fake, 0o755);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('when LIBREOFFICE_PATH is set, then config carries it and that binary renders the file to PDF in a private profile', async () => {
    assert.equal(loadConfig({ NODE_ENV: 'test', LIBREOFFICE_PATH: fake }).ai.libreOfficePath, fake);
    assert.equal(loadConfig({ NODE_ENV: 'test' }).ai.libreOfficePath, undefined);
    const pdf = await renderWithLibreOffice(Buffer.from('a word file'), 'docx', { sofficePath: fake });
    assert.equal(pdf?.toString(), '%PDF-rendered');
    const args = await readFile(path.join(dir, 'args'), 'utf8');
    assert.match(
      args,
      /--headless --norestore -env:UserInstallation=file:\/\/.*\/profile --convert-to pdf --outdir \S+ \S+document\.docx/,
    );
  });

  it('when the configured path cannot be run, then LibreOffice counts as absent and nothing is rendered', async () => {
    const missing = path.join(dir, 'no-such-soffice');
    assert.equal(await renderWithLibreOffice(Buffer.from('x'), 'docx', { sofficePath: missing }), null);
    const notExecutable = path.join(dir, 'plain-file');
    await writeFile(notExecutable, 'not a program');
    assert.equal(await renderWithLibreOffice(Buffer.from('x'), 'docx', { sofficePath: notExecutable }), null);
  });
});
