import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

// unpdf ships its PDF.js build as an ES module, loaded by a dynamic import: a worker thread
// runs it as Node itself would (jest and other CommonJS hosts cannot), off the event loop.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  try {
    const { getDocumentProxy, extractText } = await import(workerData.module);
    const pdf = await getDocumentProxy(new Uint8Array(workerData.bytes));
    const { text } = await extractText(pdf, { mergePages: false });
    parentPort.postMessage({ pages: text });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
})();
`;

/** The text of each page of a PDF, in order; throws with a short reason when it cannot be read. */
export function pdfPages(bytes: Buffer): Promise<string[]> {
  const module = pathToFileURL(require.resolve('unpdf').replace(/\.cjs$/, '.mjs')).href;
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { module, bytes } });
    worker.once('message', (m: { pages?: string[]; error?: string }) => {
      void worker.terminate();
      if (m.pages) resolve(m.pages);
      else reject(new Error(m.error ?? 'unreadable PDF'));
    });
    worker.once('error', reject);
  });
}
