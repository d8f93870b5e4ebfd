/**
 * The stored JSON of recently read nodes, by uid, in front of the `nodes` table on one
 * connection. A read by uid (`GET /node/{uid}`, a decider's look-up) is otherwise a read
 * transaction of its own: two file locks and a stat before the row, about as much CPU time
 * as the rest of the request.
 *
 * Only the connection's writer changes the rows, and it forgets a node whenever it writes
 * its row; everything that replaces rows wholesale (a rollback, a rebuilt file copied in, a
 * reset, an organization's clear) forgets them all. An entry therefore holds what the table
 * holds on this connection, committed or not, exactly as the read it saves would. Entries
 * carry their organization: two organizations may hold the same imported uid.
 */
export class NodeDocCache {
  private readonly entries = new Map<string, { org: string; doc: string }>();

  constructor(
    /** entries kept; the oldest entry leaves first */
    private readonly maxEntries = 1024,
    /** larger documents are read from the table each time */
    private readonly maxDocChars = 16_384,
  ) {}

  get(org: string, uid: string): string | undefined {
    const e = this.entries.get(uid);
    return e !== undefined && e.org === org ? e.doc : undefined;
  }

  remember(org: string, uid: string, doc: string): void {
    if (doc.length > this.maxDocChars) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(uid)) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(uid, { org, doc });
  }

  /** The node's row was written or deleted (in any organization: forgetting too much is safe). */
  forget(uid: string): void {
    if (this.entries.size) this.entries.delete(uid);
  }

  forgetAll(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
