import type { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';

export type LogLevelName = 'error' | 'warn' | 'log' | 'debug';

const PINO_LEVEL: Record<LogLevelName, pino.Level> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' };

/**
 * The service's log: JSON lines (pino), one object per line, `msg` and `context` for what the
 * code says, the request fields for request lines. On a terminal the same lines are pretty
 * printed. `destination` is for tests (a stream they read back).
 */
export function createJsonLog(level: LogLevelName, destination?: NodeJS.WritableStream): Pino {
  const opts: pino.LoggerOptions = { level: PINO_LEVEL[level], base: undefined, timestamp: pino.stdTimeFunctions.isoTime };
  if (destination) return pino(opts, destination);
  if (process.stdout.isTTY) return pino({ ...opts, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  // asynchronous writes: a log line never holds a request back
  return pino(opts, pino.destination({ dest: 1, sync: false }));
}

/** Nest's logger interface over the JSON log: every `new Logger(context)` line becomes one JSON object. */
export class JsonNestLogger implements LoggerService {
  constructor(private readonly out: Pino) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /** Nest passes the context last; an error line may carry a stack before it. */
  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    if (!this.out.isLevelEnabled(level)) return;
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = rest.length > 1 && typeof rest[0] === 'string' ? (rest[0] as string) : undefined;
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    if (stack) fields.stack = stack;
    if (message instanceof Error) this.out[level]({ ...fields, err: { message: message.message, stack: message.stack } }, message.message);
    else if (typeof message === 'object' && message !== null) this.out[level]({ ...fields, ...(message as object) });
    else this.out[level](fields, String(message));
  }
}
