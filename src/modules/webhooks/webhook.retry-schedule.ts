// When to try a failed delivery again. The default spans about three days (10 attempts: at once,
// then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 20 h), long enough to ride out a
// receiver's weekend outage, with +-10% jitter so retries after an incident do not arrive in a herd.
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 72000];

/**
 * Seconds to wait after the `failures`-th failed attempt (1-based), or null when the schedule is
 * exhausted and the delivery has failed for good.
 */
export function retryDelaySeconds(
  failures: number,
  delays: readonly number[],
  random: () => number = Math.random,
): number | null {
  const base = delays[failures - 1];
  if (base === undefined) return null;
  const jitter = 0.9 + 0.2 * random();
  return Math.max(1, Math.round(base * jitter));
}

export const totalScheduleSeconds = (delays: readonly number[]): number =>
  delays.reduce((sum, delay) => sum + delay, 0);
