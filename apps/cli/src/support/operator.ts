import { randomUUID } from 'node:crypto';
import * as os from 'node:os';

/** Who runs the CLI, as recorded in event metadata (principal kind `system`). */
export function operatorId(): string {
  try {
    return `cli:${os.userInfo().username}`;
  } catch {
    return 'cli';
  }
}

/** A request id for the events one CLI command appends (the audit trail groups them by it). */
export function cliRequestId(): string {
  return `cli-${randomUUID()}`;
}
