import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'guildhall', pid: process.pid }, // the pid tells the API from the worker, and an instance from another
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret', '*.token', '*.key'],
      censor: '[redacted]',
    },
  });
}
