import { DomainError } from '@strata/domain/errors';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';

/**
 * Export, decay, purge and clear read the SQLite read model and log in bulk. Until the
 * server adapters offer the same bulk reads, servers mode answers 501 not_implemented
 * before anything is read or written.
 */
export function embeddedStorage(storage: EmbeddedStorage | null, route: string): EmbeddedStorage {
  if (!storage) throw new DomainError(501, 'not_implemented', `${route} is not available with STRATA_STORE=servers yet`);
  return storage;
}
