import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    // the pid tells the API from the worker, and one instance from another
    base: { service: 'guildhall', pid: process.pid },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.secret', '*.token', '*.key'],
      censor: '[redacted]',
    },
  });
}
