// The start-up line names two independent settings, which are easy to read as a contradiction
// ("development ... production"): NODE_ENV says how this process runs (development conveniences such
// as demo data, or production safeguards), APP_ENV which API environment it serves (live data and
// gh_live_ keys, or the sandbox and gh_test_ keys). So each gets its own words.
import type { Config } from '../config.ts';

const RUNS: Record<Config['nodeEnv'], string> = {
  development: 'development mode (NODE_ENV=development)',
  test: 'test mode (NODE_ENV=test)',
  production: 'production mode (NODE_ENV=production)',
};
const SERVES: Record<Config['appEnv'], string> = {
  production: 'serving the live API environment (APP_ENV=production, gh_live_ keys)',
  sandbox: 'serving the sandbox API environment (APP_ENV=sandbox, gh_test_ keys)',
};

export function startupLine(port: number, nodeEnv: Config['nodeEnv'], appEnv: Config['appEnv']): string {
  return `Guildhall listening on http://localhost:${port} — ${RUNS[nodeEnv]}, ${SERVES[appEnv]}; Admin Portal at /admin, API docs at /api/docs`;
}
