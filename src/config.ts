// The only reader of process.env. Parsed once at start-up against one schema (src/config/): a bad
// configuration stops the process with every problem named at once, instead of failing later in some
// request or one fix-and-restart at a time. The variables, their defaults and their descriptions are
// in src/config/variables*.ts; the README's table and .env.example are generated from them.
import type * as z from 'zod';
import { configSchema } from './config/schema.ts';
import { variables } from './config/variables.ts';

export { apiKeyPrefix, appSecretRequired } from './config/schema.ts';

export type Config = z.output<typeof configSchema>;
export type AppEnv = Config['appEnv'];
export type Plan = keyof Config['rateLimits'];
/** The resource library: sizes, storage, resumable uploads. */
export type LibrarySettings = Config['library'];
/** Claude, embeddings and generated media. */
export type AiSettings = Config['ai'];
/** The listening server and the proxy in front of it. */
export type HttpSettings = Config['http'];

export class ConfigError extends Error {
  /** Each problem in a sentence of its own; the message holds them all. */
  readonly problems: readonly string[];

  constructor(message: string, problems: readonly string[] = [message]) {
    super(message);
    this.problems = problems;
  }

  /**
   * One problem a line, its own further lines indented; the first comes right after what the entry points
   * print before a message ("Configuration error: "), so a single problem reads as it always has.
   */
  static of(problems: readonly string[]): ConfigError {
    if (problems.length === 1) return new ConfigError(problems[0], problems);
    return new ConfigError(problems.map((problem) => problem.replaceAll('\n', '\n  ')).join('\n'), problems);
  }
}

type Env = Record<string, string | undefined>;

/** The schema's variables from `env`, trimmed; an empty one counts as unset. */
function read(env: Env): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const name of Object.keys(variables.shape)) values[name] = env[name]?.trim() || undefined;
  return values;
}

function describe(issue: z.core.$ZodIssue): string {
  // an issue of one variable reads after its name; a rule between variables names them itself
  return issue.path.length > 0 ? `${String(issue.path[0])} ${issue.message}` : issue.message;
}

export function loadConfig(env: Env = process.env): Config {
  const result = configSchema.safeParse(read(env));
  if (!result.success) throw ConfigError.of([...new Set(result.error.issues.map(describe))]);
  return result.data;
}
