// SIGTERM/SIGINT for a long-running process (the API, the worker): stop once, log, give the work in
// hand 25 s to finish, then exit 0 (or 1 when it took too long).
import type { Logger } from './logger.ts';

const FORCED_EXIT_MS = 25_000;

export function onShutdownSignal(logger: Logger, message: string, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, message);
    const forced = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, FORCED_EXIT_MS);
    forced.unref();
    await stop();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
