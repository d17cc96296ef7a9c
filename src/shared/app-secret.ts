import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { appSecretRequired, ConfigError, type Config } from '../config.ts';
import type { Logger } from './logger.ts';

/**
 * APP_SECRET signs tokens and seals secrets at rest, so it must live as long as the data it seals.
 * A server database (DATABASE_URL) outlives any process and is shared by every instance: there the
 * secret must be configured (loadConfig already refuses to start without it). The embedded database
 * lives in DATA_DIR, and so does its generated secret; an in-memory one dies with the process, and
 * so may its secret.
 */
export async function resolveAppSecret(config: Config, logger: Logger): Promise<string> {
  if (config.appSecret) return config.appSecret;
  if (config.databaseUrl) throw new ConfigError(appSecretRequired('DATABASE_URL is set'));
  if (config.dataDir === 'memory://') return randomBytes(32).toString('base64url');
  const file = path.resolve(config.dataDir, 'app-secret');
  const stored = await readStoredSecret(file);
  if (stored) return stored;
  const secret = randomBytes(32).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true });
  // 'wx': never overwrite a secret another process has just written
  await writeFile(file, secret, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const kept = await readStoredSecret(file);
  if (!kept) throw new Error(`could not keep the generated APP_SECRET in ${file}`);
  logger.info({ file }, 'generated APP_SECRET for the embedded database');
  return kept;
}

async function readStoredSecret(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error; // unreadable is not absent: generating a new one would orphan every sealed secret
  }
}
