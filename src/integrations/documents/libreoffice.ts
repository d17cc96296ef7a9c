// LibreOffice headless, where it is installed (optional: the Docker image may add it, `npm ci` cannot):
// renders an office file to PDF, one conversion at a time, in a private profile folder so concurrent
// processes do not fight over ~/.config/libreoffice. LIBREOFFICE_PATH (config.ai.libreOfficePath) names
// the binary; unset, `soffice` is looked up on PATH.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const located = new Map<string, Promise<string | null>>();

const executable = (file: string) => access(file, constants.X_OK).then(() => true, () => false);

/** The configured binary when it can be run, else (no setting) `soffice` on PATH, else null; once per setting. */
export function findSoffice(configured?: string): Promise<string | null> {
  const key = configured ?? '';
  let found = located.get(key);
  if (!found) {
    found = (async () => {
      if (configured) return (await executable(configured)) ? configured : null;
      for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
        const candidate = join(dir, 'soffice');
        if (await executable(candidate)) return candidate;
      }
      return null;
    })();
    located.set(key, found);
  }
  return found;
}

let queue: Promise<unknown> = Promise.resolve();

/** The file rendered to PDF, or null where LibreOffice is absent or the conversion fails. */
export async function renderWithLibreOffice(data: Buffer, extension: string, options: { sofficePath?: string; timeoutMs?: number } = {}): Promise<Buffer | null> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const soffice = await findSoffice(options.sofficePath);
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
