import { eventually as waitFor } from '@strata/domain/testing/eventually';

/** Waits until `check` holds (background work of the replicas or the worker); fails naming `what` after `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 5000): Promise<void> {
  await waitFor(check, { what, timeoutMs: ms, everyMs: 20 });
}
