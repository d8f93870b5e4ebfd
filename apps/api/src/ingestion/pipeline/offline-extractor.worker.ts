import { parentPort } from 'node:worker_threads';
import { OfflineExtractor } from '@strata/extraction/offline/offline-extractor';
import type { OfflineRequest, OfflineReply } from './offline-extractor-thread';

// The offline extractor's rules, run on a thread of their own (offline-extractor-thread.ts).
const extractor = new OfflineExtractor();

parentPort!.on('message', (m: OfflineRequest) => {
  extractor.extract({ content: m.content, layers: m.layers, context: m.context }).then(
    (outcomes) => parentPort!.postMessage({ id: m.id, outcomes } satisfies OfflineReply),
    (err: unknown) => parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies OfflineReply),
  );
});
