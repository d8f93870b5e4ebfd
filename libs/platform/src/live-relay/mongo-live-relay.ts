import { Logger } from '@nestjs/common';
import type { Collection, Db, FindCursor, ObjectId } from 'mongodb';
import type { LiveRelay } from './live-relay.port';

type Listener = (channel: string, payload: unknown) => void;

interface RelayMessage {
  channel: string;
  payload: unknown;
}

/** one document per turn of the publisher's event loop: every message published in it, in order */
interface RelayDoc {
  _id?: ObjectId;
  /** documents written before batching held one message each */
  channel?: string;
  payload?: unknown;
  batch?: RelayMessage[];
}

const COLLECTION = 'live_relay';
/** the window kept: old messages are overwritten, nobody reads them */
const SIZE_BYTES = 16 * 1024 * 1024;
const RETRY_MS = 1000;

/**
 * The relay on MongoDB, which every replica already shares: a capped collection (insertion
 * order, old messages overwritten) read through a tailable cursor, so a message reaches the
 * other replicas without polling and without a replica set (change streams would need one).
 * A replica tails from the end it found: only messages published after it began listening.
 */
export class MongoLiveRelay implements LiveRelay {
  private readonly log = new Logger('LiveRelay');
  private readonly listeners = new Set<Listener>();
  private ready: Promise<Collection<RelayDoc>> | null = null;
  private tailing: Promise<void> | null = null;
  private cursor: FindCursor<RelayDoc> | null = null;
  private closed = false;
  /** messages published since the last write, written together on the next turn */
  private pending: RelayMessage[] = [];
  /** the write in progress: writes are chained, so the documents are in publishing order */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  private collection(): Promise<Collection<RelayDoc>> {
    return (this.ready ??= (async () => {
      try {
        await this.db.createCollection(COLLECTION, { capped: true, size: SIZE_BYTES });
      } catch (err) {
        // 48 NamespaceExists: another replica made it
        if ((err as { code?: number }).code !== 48) throw err;
      }
      return this.db.collection<RelayDoc>(COLLECTION);
    })());
  }

  /**
   * Queues the message; everything published during this turn of the event loop goes out as ONE
   * document (a streaming model yields many small deltas: one insert per delta was one write per
   * chunk). Documents are written one after another, so order holds across turns too.
   */
  publish(channel: string, payload: unknown): void {
    this.pending.push({ channel, payload });
    if (this.pending.length > 1) return;
    setImmediate(() => {
      const batch = this.pending;
      this.pending = [];
      this.writing = this.writing
        .then(() => this.collection())
        .then((c) => c.insertOne({ batch }))
        .then(
          () => undefined,
          (err: Error) => this.log.warn(`relaying ${batch.length} live message(s) failed: ${err.message}`),
        );
    });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    this.tailing ??= this.tail();
    return () => this.listeners.delete(listener);
  }

  /** the newest message now (one is written when there is none: a tailable cursor on an empty collection ends at once) */
  private async newest(c: Collection<RelayDoc>): Promise<ObjectId> {
    const last = await c.find({}).sort({ $natural: -1 }).limit(1).next();
    return last?._id ?? (await c.insertOne({ channel: '', payload: null })).insertedId;
  }

  private async tail(): Promise<void> {
    let seen: ObjectId | null = null;
    while (!this.closed) {
      try {
        const c = await this.collection();
        // resume after the last message delivered, unless the window moved past it
        let skipUntil: ObjectId | null = seen && (await c.countDocuments({ _id: seen }, { limit: 1 })) ? seen : await this.newest(c);
        this.cursor = c.find({}, { tailable: true, awaitData: true });
        for await (const doc of this.cursor) {
          if (skipUntil) {
            if (doc._id!.equals(skipUntil)) skipUntil = null;
            continue;
          }
          seen = doc._id!;
          const messages = doc.batch ?? (doc.channel ? [{ channel: doc.channel, payload: doc.payload }] : []);
          for (const m of messages) for (const l of [...this.listeners]) l(m.channel, m.payload);
        }
      } catch (err) {
        if (!this.closed) this.log.warn(`the live relay's cursor stopped: ${(err as Error).message}`);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, RETRY_MS).unref());
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    await this.writing;
    await this.cursor?.close().catch(() => undefined);
    await this.tailing?.catch(() => undefined);
  }
}
