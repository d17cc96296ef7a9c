import { multiInstanceRateLimitTests } from './multi-instance-rate-limit.scenario.ts';

multiInstanceRateLimitTests('PostgreSQL');
