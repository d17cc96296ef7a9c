// The process handlers of a long-running process (the API, the worker), installed here and nowhere
// else. SIGTERM/SIGINT: stop once, log, give the work in hand 25 s to finish, then exit 0 (or 1 when it
// took too long). An unhandled promise rejection: logged at fatal, then the same graceful stop, exiting
// 1. Node's default (crash at once) exists because the process's state is no longer known to be sound;
// logging and carrying on hid that. Stopping gracefully still lets requests and jobs in hand finish, and
// the non-zero exit tells the supervisor (Docker's restart policy, systemd, Kubernetes) to restart it.
// With `--stop-with-parent` (which `npm start` and `npm run worker` pass), a parent that goes away stops
// it the same way: npm runs a script under `sh -c` and relays a SIGTERM to that shell alone, which ends
// and leaves the service, adopted by init, holding the port and the data folder's lock.
import type { Logger } from './logger.ts';

const FORCED_EXIT_MS = 25_000;
const PARENT_CHECK_MS = 500;

function whenParentExits(then: () => void): void {
  const parent = process.ppid; // read afresh on every access: an adopted process sees init's (or a subreaper's)
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    then();
  }, PARENT_CHECK_MS);
  timer.unref();
}

export function onShutdownSignal(logger: Logger, message: string, stop: () => Promise<void>): void {
  let stopping = false;
  let exitCode = 0;
  const shutdown = async (cause: { signal: string } | { unhandledRejection: true }, code: 0 | 1) => {
    // a rejection during a signal's stop still makes the exit a failure
    exitCode = Math.max(exitCode, code);
    if (stopping) return;
    stopping = true;
    logger.info(cause, message);
    const forced = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, FORCED_EXIT_MS);
    forced.unref();
    try {
      await stop();
    } catch (error) {
      // not left to the rejection handler: it would find the stop already under way and the process
      // could end on an empty event loop with exit code 0
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void shutdown({ signal: 'SIGTERM' }, 0));
  process.on('SIGINT', () => void shutdown({ signal: 'SIGINT' }, 0));
  if (process.argv.includes('--stop-with-parent')) whenParentExits(() => void shutdown({ signal: 'parent exited' }, 0));
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection: shutting down');
    void shutdown({ unhandledRejection: true }, 1);
  });
}
