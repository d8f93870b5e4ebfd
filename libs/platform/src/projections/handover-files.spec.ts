import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SERVICE_FILE, runningService, tryLock, writeJsonAtomic } from './handover-files';

/** when the presence file was last refreshed (seconds), set on the file itself */
const HEARTBEAT_AT = 1_700_000_000;

describe('hand-over files', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-handover-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sees a service whose presence file is fresh and whose process runs', () => {
    const file = path.join(dir, SERVICE_FILE);
    writeJsonAtomic(file, { pid: process.pid, started_at: '', url: null });
    fs.utimesSync(file, HEARTBEAT_AT, HEARTBEAT_AT);
    expect(runningService(dir, HEARTBEAT_AT * 1000 + 1_000)?.pid).toBe(process.pid);
  });

  it('ignores a presence file left by a crashed service or not refreshed for long', () => {
    const file = path.join(dir, SERVICE_FILE);
    writeJsonAtomic(file, { pid: 2 ** 22 + 12345, started_at: '', url: null });
    fs.utimesSync(file, HEARTBEAT_AT, HEARTBEAT_AT);
    expect(runningService(dir, HEARTBEAT_AT * 1000 + 1_000)).toBeNull();
    writeJsonAtomic(file, { pid: process.pid, started_at: '', url: null });
    fs.utimesSync(file, HEARTBEAT_AT, HEARTBEAT_AT);
    expect(runningService(dir, HEARTBEAT_AT * 1000 + 60_000)).toBeNull();
  });

  it('gives a lock to one holder at a time and takes over one whose owner died', () => {
    const file = path.join(dir, 'x.lock');
    const release = tryLock(file)!;
    expect(release).toBeInstanceOf(Function);
    expect(tryLock(file)).toBeNull();
    release();
    fs.writeFileSync(file, String(2 ** 22 + 12345));
    expect(tryLock(file)).not.toBeNull();
  });
});
