import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from './logger.ts';

/**
 * APP_SECRET signs tokens and seals secrets at rest. With embedded PGlite and no APP_SECRET, one is
 * generated once and kept beside the data, so tokens survive restarts of a development instance.
 */
export async function resolveAppSecret(config: Config, logger: Logger): Promise<string> {
  if (config.appSecret) return config.appSecret;
  if (!config.databaseUrl && config.dataDir !== 'memory://') {
    const file = path.resolve(config.dataDir, 'app-secret');
    try {
      return (await readFile(file, 'utf8')).trim();
    } catch {
      const secret = randomBytes(32).toString('base64url');
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, secret, { mode: 0o600 });
      logger.info({ file }, 'generated APP_SECRET for the embedded database');
      return secret;
    }
  }
  logger.warn('APP_SECRET is not set: using a random one; tokens will not survive a restart');
  return randomBytes(32).toString('base64url');
}
