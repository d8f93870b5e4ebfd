import type { ServerCheckpoints } from '@strata/platform/storage/server-stores';

interface Checkpoint {
  version: number;
  position: number;
  last_error: string | null;
}

/**
 * The checkpoint port in memory, shared by the API replicas and workers of one test as the
 * MongoDB collection is: advances never move back, and only while the stored version is the
 * caller's (MongoCheckpointStore's rules, checkpointAdvance in mongo-documents.ts).
 */
export class MemoryCheckpointStore implements ServerCheckpoints {
  private readonly rows = new Map<string, Checkpoint>();

  async get(name: string): Promise<Checkpoint | null> {
    const c = this.rows.get(name);
    return c ? { ...c } : null;
  }

  async reset(name: string, version: number): Promise<void> {
    this.rows.set(name, { version, position: 0, last_error: null });
  }

  async advance(name: string, version: number, position: number): Promise<boolean> {
    const c = this.rows.get(name);
    if (!c || c.version !== version) return false;
    c.position = Math.max(c.position, position);
    c.last_error = null;
    return true;
  }

  async setError(name: string, error: string): Promise<void> {
    const c = this.rows.get(name);
    if (c) c.last_error = error.slice(0, 2000);
  }

  async lowest(names: readonly string[]): Promise<number> {
    const found = names.map((n) => this.rows.get(n));
    if (found.some((c) => !c)) return 0;
    return Math.min(...found.map((c) => c!.position));
  }
}
