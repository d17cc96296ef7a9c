import { multiInstanceRateLimitTests } from './multi-instance-rate-limit.scenario.ts';

// Runs where a Redis is given: .ci/run sets TEST_REDIS_URL when one answers on 127.0.0.1:6379.
if (process.env.TEST_REDIS_URL) multiInstanceRateLimitTests('Redis');
