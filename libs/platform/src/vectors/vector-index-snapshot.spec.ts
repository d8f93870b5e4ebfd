import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import { readVectorIndexSnapshot } from '@strata/vector-index/embedded/vector-index-snapshot';

describe('readVectorIndexSnapshot', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-vsnap-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function saved(): Promise<void> {
    const index = new EmbeddedVectorIndex(dir);
    index.configureSync('o1', { dimensions: 3, metric: 'cosine' });
    index.configureSync('o2', { dimensions: 2, metric: 'dot' });
    index.upsertSync('o1', [
      { uid: 'a', vector: [1, 0, 0], node_type: 'Goal', layer: 'reality' },
      { uid: 'b', vector: [0, 0.5, 0.25], node_type: 'Claim', layer: 'belief' },
      { uid: 'c', vector: [0, 0, 1], node_type: 'Goal', layer: 'reality' },
    ]);
    index.removeSync('o1', ['c']); // a freed slot
    index.upsertSync('o2', [{ uid: 'x', vector: [3, 4], node_type: 'Goal', layer: 'reality' }]);
    index.flushSync(42);
    await index.close();
  }

  it('reads what the index saved: checkpoint, spaces, and every live vector with its tags', async () => {
    await saved();
    const s = readVectorIndexSnapshot(dir);
    expect(s.checkpoint).toBe(42);
    expect([...s.spaces.keys()].sort()).toEqual(['o1', 'o2']);
    const o1 = s.spaces.get('o1')!;
    expect(o1).toMatchObject({ dimensions: 3, metric: 'cosine', damaged: null });
    expect([...o1.vectors.keys()].sort()).toEqual(['a', 'b']);
    expect(Array.from(o1.vectors.get('b')!.vector)).toEqual([0, 0.5, 0.25]);
    expect(o1.vectors.get('b')).toMatchObject({ node_type: 'Claim', layer: 'belief' });
    expect(Array.from(s.spaces.get('o2')!.vectors.get('x')!.vector)).toEqual([3, 4]);
  });

  it('marks a space whose vectors file does not match its ids, and reads a never-saved index as empty', async () => {
    expect(readVectorIndexSnapshot(dir)).toEqual({ checkpoint: null, spaces: new Map() });
    await saved();
    const f32 = fs.readdirSync(dir).find((f) => f.endsWith('.f32') && fs.statSync(path.join(dir, f)).size === 8)!;
    fs.writeFileSync(path.join(dir, f32), Buffer.alloc(4));
    // keep the manifest the newest file, as a finished save leaves it
    const manifest = path.join(dir, 'manifest.json');
    fs.writeFileSync(manifest, fs.readFileSync(manifest));
    const s = readVectorIndexSnapshot(dir);
    expect(s.spaces.get('o2')!.damaged).toMatch(/holds 4 bytes, its ids need 8/);
    expect(s.spaces.get('o1')!.damaged).toBeNull();
  });
});
