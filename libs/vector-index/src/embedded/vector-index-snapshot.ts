import * as fs from 'node:fs';
import * as path from 'node:path';
import { MANIFEST_FILE } from './vector-handover-files';

/** One organization's saved vector space, as EmbeddedVectorIndex wrote it. */
export interface SavedSpace {
  org: string;
  dimensions: number;
  metric: string;
  /** uid → vector, node_type, layer */
  vectors: Map<string, { vector: Float32Array; node_type: string; layer: string }>;
  /** why the saved files cannot be trusted (an interrupted save), if so */
  damaged: string | null;
}

export interface VectorIndexSnapshot {
  /** the manifest's checkpoint; null when the index was never saved */
  checkpoint: number | null;
  spaces: Map<string, SavedSpace>;
}

/** the on-disk format EmbeddedVectorIndex writes (libs/vector-index/src/embedded) */
const FORMAT_VERSION = 1;
const SPACE_META = /^org-[0-9a-f]{40}\.json$/;

interface SpaceMeta {
  version: number;
  org: string;
  dimensions: number;
  metric: string;
  uids: string[];
  types: string[];
  layers: string[];
}

function readOnce(dir: string): VectorIndexSnapshot {
  const spaces = new Map<string, SavedSpace>();
  let checkpoint: number | null = null;
  let manifest: { checkpoint?: number | null } | null = null;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (!manifest) return { checkpoint, spaces };
  checkpoint = typeof manifest.checkpoint === 'number' ? manifest.checkpoint : null;
  for (const name of fs.readdirSync(dir).sort()) {
    if (!SPACE_META.test(name)) continue;
    const meta = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as SpaceMeta;
    const space: SavedSpace = { org: meta.org, dimensions: meta.dimensions, metric: meta.metric, vectors: new Map(), damaged: null };
    spaces.set(meta.org, space);
    if (meta.version !== FORMAT_VERSION) {
      space.damaged = `saved in format ${meta.version}, this code reads ${FORMAT_VERSION}`;
      continue;
    }
    const f32 = path.join(dir, name.replace(/\.json$/, '.f32'));
    const raw = fs.existsSync(f32) ? fs.readFileSync(f32) : Buffer.alloc(0);
    const d = meta.dimensions;
    if (raw.length !== meta.uids.length * d * 4) {
      space.damaged = `${path.basename(f32)} holds ${raw.length} bytes, its ids need ${meta.uids.length * d * 4}`;
      continue;
    }
    const all = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
    meta.uids.forEach((uid, slot) => {
      if (uid) space.vectors.set(uid, { vector: all.subarray(slot * d, (slot + 1) * d), node_type: meta.types[slot], layer: meta.layers[slot] });
    });
  }
  return { checkpoint, spaces };
}

/**
 * Every file's identity, time and size; `saving` when a space file is newer than the manifest
 * (saves write the spaces first and the manifest last, each by a rename), which a save under
 * way, or files copied out of order, look like.
 */
function dirStamp(dir: string): { stamp: string; saving: boolean } {
  let names: string[];
  try {
    names = fs.readdirSync(dir).sort();
  } catch {
    return { stamp: 'none', saving: false };
  }
  const parts: string[] = [];
  let manifestTime = -1;
  let newest = -1;
  for (const name of names) {
    let st: fs.Stats;
    try {
      st = fs.statSync(path.join(dir, name));
    } catch {
      parts.push(`${name}:gone`);
      continue;
    }
    parts.push(`${name}:${st.ino}:${st.mtimeMs}:${st.size}`);
    if (name === MANIFEST_FILE) manifestTime = st.mtimeMs;
    else if (name.startsWith('org-')) newest = Math.max(newest, st.mtimeMs);
  }
  return { stamp: parts.join('|'), saving: manifestTime >= 0 && newest > manifestTime };
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Reads a saved vector index (its files, not a running service's memory). A save that
 * overlapped the read shows as files that changed meanwhile: the read is then tried again.
 */
export function readVectorIndexSnapshot(dir: string, attempts = 20): VectorIndexSnapshot {
  for (let i = 1; ; i++) {
    const before = dirStamp(dir);
    // files newer than the manifest: read them only once nothing has moved for a while
    const quiet = !before.saving || (pause(250), dirStamp(dir).stamp === before.stamp);
    let snapshot: VectorIndexSnapshot | null = null;
    try {
      if (quiet) snapshot = readOnce(dir);
    } catch (err) {
      // a file renamed under the reader by a concurrent save
      if (i >= attempts) throw err;
    }
    if (snapshot && dirStamp(dir).stamp === before.stamp) return snapshot;
    if (i >= attempts) throw new Error(`the vector index in ${dir} kept changing while it was read`);
    pause(50);
  }
}
