// One process per embedded data directory: PGlite is single-process, and a second process opening the
// same files (a second `npm start`, `npm run reset-admin` while the server runs) would corrupt them.
// PGlite's own postmaster.pid cannot tell (it always holds the fake pid -42), so we keep our own.
import { open, readFile, unlink } from 'node:fs/promises';
import path from 'node:path';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another process (pid ${pid}), probably a running Guildhall server. ` +
        'Only one process may open an embedded database: stop that process first (Ctrl+C or kill ' +
        pid +
        '), then run this again.',
    );
    this.name = 'DataDirInUseError';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const lockFileOf = (dataDir: string) => path.join(path.resolve(dataDir), 'embedded.pid');

/** Takes the data directory for this process; a lock left by a process that no longer runs is taken over. */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(file, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => unlink(file).catch(() => undefined);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (holder && holder !== process.pid && alive(holder)) throw new DataDirInUseError(path.resolve(dataDir), holder);
    await unlink(file).catch(() => undefined); // stale (a crash or kill -9) or our own
  }
  throw new Error(`could not lock ${file}`);
}
