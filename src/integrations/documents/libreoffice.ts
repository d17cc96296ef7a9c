// LibreOffice headless, where it is installed (optional: the Docker image may add it, `npm ci` cannot):
// renders an office file to PDF, one conversion at a time, in a private profile folder so concurrent
// processes do not fight over ~/.config/libreoffice. LIBREOFFICE_PATH (config.ai.libreOfficePath) names
// the binary; unset, `soffice` is looked up on PATH. One that cannot be started counts as absent.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Binaries that could not be started (not installed, not executable): not tried again. */
const absent = new Set<string>();

let queue: Promise<unknown> = Promise.resolve();

/** The file rendered to PDF, or null where LibreOffice is absent or the conversion fails. */
export async function renderWithLibreOffice(
  data: Buffer,
  extension: string,
  options: { sofficePath?: string; timeoutMs?: number } = {},
): Promise<Buffer | null> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const soffice = options.sofficePath ?? 'soffice'; // a bare name: execFile looks it up on PATH
  if (absent.has(soffice)) return null;
  const run = queue.then(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'guildhall-soffice-'));
    try {
      const input = join(dir, `document.${extension}`);
      await writeFile(input, data);
      const profile = pathToFileURL(join(dir, 'profile')).href;
      await new Promise<void>((resolve, reject) =>
        execFile(
          soffice,
          [
            '--headless',
            '--norestore',
            `-env:UserInstallation=${profile}`,
            '--convert-to',
            'pdf',
            '--outdir',
            dir,
            input,
          ],
          { timeout: timeoutMs },
          (error) => {
            const cannotStart = error && ['ENOENT', 'EACCES'].includes(String((error as NodeJS.ErrnoException).code));
            if (cannotStart) absent.add(soffice);
            return error ? reject(error) : resolve();
          },
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
