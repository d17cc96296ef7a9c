// `.env` in the working directory, when there is one, fills in the variables the environment leaves
// unset (the environment wins), before config.ts reads them. Node's own parser (process.loadEnvFile,
// Node 20.12+): no dependency, and `--env-file-if-exists` is not in every Node 20 we support.
import { existsSync } from 'node:fs';

export function loadDotEnv(file = '.env'): boolean {
  if (!existsSync(file)) return false;
  process.loadEnvFile(file);
  return true;
}
