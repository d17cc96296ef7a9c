// LibreOffice headless, where it is installed (optional: the Docker image may add it, `npm ci` cannot):
// renders an office file to PDF, one conversion at a time, in a private profile folder so concurrent
// processes do not fight over ~/.config/libreoffice.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

let located: Promise<string | null> | undefined;

/** The `soffice` binary on PATH, or null; looked up once per process. */
export function findSoffice(): Promise<string | null> {
  located ??= (async () => {
    for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
      const candidate = join(dir, 'soffice');
      if (await access(candidate, constants.X_OK).then(() => true, () => false)) return candidate;
    }
    return null;
  })();
  return located;
}

let queue: Promise<unknown> = Promise.resolve();

/** The file rendered to PDF, or null where LibreOffice is absent or the conversion fails. */
export async function renderWithLibreOffice(data: Buffer, extension: string, timeoutMs = 120_000): Promise<Buffer | null> {
  const soffice = await findSoffice();
  if (!soffice) return null;
  const run = queue.then(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guildhall-soffice-'));
    try {
      const input = join(dir, `document.${extension}`);
      await writeFile(input, data);
      const profile = pathToFileURL(join(dir, 'profile')).href;
      await new Promise<void>((resolve, reject) =>
        execFile(soffice, ['--headless', '--norestore', `-env:UserInstallation=${profile}`, '--convert-to', 'pdf', '--outdir', dir, input], { timeout: timeoutMs }, (error) =>
          error ? reject(error) : resolve(),
        ),
      );
      return await readFile(join(dir, 'document.pdf'));
    } catch {
      return null;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  queue = run.catch(() => undefined);
  return run;
}
