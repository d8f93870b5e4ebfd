import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { dropPreviousVectors, restorePreviousVectors, swapInVectorDirs } from './vector-handover-files';

describe('vector index directory swap', () => {
  let dataDir: string;
  const write = (dir: string, file: string, text: string) => {
    fs.mkdirSync(path.join(dataDir, dir), { recursive: true });
    fs.writeFileSync(path.join(dataDir, dir, file), text);
  };
  const read = (dir: string, file: string) => fs.readFileSync(path.join(dataDir, dir, file), 'utf8');
  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-vswap-'));
    write('vectors', 'manifest.json', 'old');
    write('vectors.next', 'manifest.json', 'new');
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('puts the built index in place and keeps the previous one until it is dropped', () => {
    swapInVectorDirs(dataDir);
    expect(read('vectors', 'manifest.json')).toBe('new');
    expect(read('vectors.prev', 'manifest.json')).toBe('old');
    expect(fs.existsSync(path.join(dataDir, 'vectors.next'))).toBe(false);
    dropPreviousVectors(dataDir);
    expect(fs.readdirSync(dataDir)).toEqual(['vectors']);
  });

  it('goes back to the previous index when the new one cannot be opened', () => {
    swapInVectorDirs(dataDir);
    restorePreviousVectors(dataDir);
    expect(read('vectors', 'manifest.json')).toBe('old');
    expect(fs.readdirSync(dataDir)).toEqual(['vectors']);
  });

  it('swaps in another built directory, and also when there is no index yet', () => {
    fs.rmSync(path.join(dataDir, 'vectors'), { recursive: true });
    write('vectors.upgrade', 'manifest.json', 'upgraded');
    swapInVectorDirs(dataDir, 'vectors.upgrade');
    expect(read('vectors', 'manifest.json')).toBe('upgraded');
    expect(fs.existsSync(path.join(dataDir, 'vectors.prev'))).toBe(false);
  });

  it('refuses a built directory without a manifest (an unfinished build), leaving the live index alone', () => {
    fs.rmSync(path.join(dataDir, 'vectors.next', 'manifest.json'));
    expect(() => swapInVectorDirs(dataDir)).toThrow('vectors.next/manifest.json does not exist');
    expect(read('vectors', 'manifest.json')).toBe('old');
  });
});
