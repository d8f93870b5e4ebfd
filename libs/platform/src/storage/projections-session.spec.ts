import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@strata/domain/time';
import { ProjectionsSession, describeFlushState, projectionsFlushState, readSessionMarker, sessionMarkerFile, writeSessionMarker } from './projections-session';

const BOOT = 'boot-a';
const clock = new FixedClock(1_700_000_000);
const OTHER_BOOT = 'boot-b';

/** A pid that ran and is gone (a crashed process). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

/** A projections file path in a fresh temporary directory per test. */
function tempProjectionsFile(): { readonly file: string } {
  let dir = '';
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-session-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    get file() {
      return path.join(dir, 'projections.db');
    },
  };
}

describe('ProjectionsSession', () => {
  const tmp = tempProjectionsFile();
  let file: string;
  beforeEach(() => {
    file = tmp.file;
  });

  function writeRows(n: number, synchronous = 'OFF'): Database.Database {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous}`);
    db.exec('CREATE TABLE IF NOT EXISTS t (x INTEGER)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    for (let i = 0; i < n; i++) insert.run(i);
    return db;
  }

  it('owns a new file unflushed, marks it open, and on a clean end flushes it and marks it closed', () => {
    const s = ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock });
    expect(s.synchronous).toBe('OFF');
    expect(s.discarded).toBeNull();
    expect(readSessionMarker(file)).toMatchObject({ state: 'open', boot_id: BOOT, pid: process.pid, at: '2023-11-14T22:13:20.000Z' });
    const db = writeRows(10);
    s.end(db);
    expect(db.open).toBe(false);
    expect(readSessionMarker(file)).toMatchObject({ state: 'closed', boot_id: BOOT });
    // the truncating checkpoint put every page into the file itself
    expect(fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0).toBe(0);
    const again = new Database(file, { readonly: true });
    expect(again.prepare('SELECT count(*) FROM t').pluck().get()).toBe(10);
    again.close();
  });

  it('discards a file an earlier boot left open, and the file is created anew', () => {
    writeRows(5).close();
    writeSessionMarker(file, 'open', OTHER_BOOT, clock);
    const s = ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock });
    expect(s.discarded).toMatch(/before the machine restarted/);
    expect(fs.existsSync(file)).toBe(false);
    expect(readSessionMarker(file)).toMatchObject({ state: 'open', boot_id: BOOT });
  });

  it('has nothing to discard when an earlier boot left only the marker', () => {
    writeSessionMarker(file, 'open', OTHER_BOOT, clock);
    expect(ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock }).discarded).toBeNull();
    expect(readSessionMarker(file)).toMatchObject({ state: 'open', boot_id: BOOT });
  });

  it('keeps a file a crashed process of this boot left open', () => {
    writeRows(5).close();
    fs.writeFileSync(sessionMarkerFile(file), JSON.stringify({ state: 'open', boot_id: BOOT, pid: deadPid(), at: '' }));
    const s = ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock });
    expect(s.discarded).toBeNull();
    expect(fs.existsSync(file)).toBe(true);
    expect(readSessionMarker(file)).toMatchObject({ state: 'open', pid: process.pid });
  });

  it('keeps a cleanly closed file through a restart of the machine', () => {
    writeRows(5).close();
    writeSessionMarker(file, 'closed', OTHER_BOOT, clock);
    expect(ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock }).discarded).toBeNull();
    expect(fs.existsSync(file)).toBe(true);
  });

  it('discards a file whose marker was torn', () => {
    writeRows(5).close();
    fs.writeFileSync(sessionMarkerFile(file), '{"state":"op');
    expect(ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock }).discarded).toMatch(/cannot be read/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('is a guest beside a live owner: flushed writes, and the marker left alone', () => {
    writeRows(5).close();
    const owner = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(sessionMarkerFile(file), JSON.stringify({ state: 'open', boot_id: BOOT, pid: owner.pid, at: 'then' }));
      const s = ProjectionsSession.begin(file, { sync: 'off', bootId: BOOT, clock });
      expect(s.synchronous).toBe('NORMAL');
      const db = new Database(file);
      s.end(db);
      expect(readSessionMarker(file)).toMatchObject({ state: 'open', pid: owner.pid, at: 'then' });
    } finally {
      owner.kill();
    }
  });

  it('with sync normal, flushes as SQLite does and drops the marker (still discarding a torn file first)', () => {
    writeRows(5).close();
    writeSessionMarker(file, 'open', OTHER_BOOT, clock);
    const s = ProjectionsSession.begin(file, { sync: 'normal', bootId: BOOT, clock });
    expect(s.synchronous).toBe('NORMAL');
    expect(s.discarded).not.toBeNull();
    expect(fs.existsSync(sessionMarkerFile(file))).toBe(false);
  });

  it('stays flushed where the platform has no boot id', () => {
    const s = ProjectionsSession.begin(file, { sync: 'off', bootId: null, clock });
    expect(s.synchronous).toBe('NORMAL');
    expect(fs.existsSync(sessionMarkerFile(file))).toBe(false);
  });
});

describe('projectionsFlushState', () => {
  const tmp = tempProjectionsFile();
  let file: string;
  beforeEach(() => {
    file = tmp.file;
  });
  const marker = (m: object) => fs.writeFileSync(sessionMarkerFile(file), JSON.stringify({ at: 'then', ...m }));

  it('tells an operator whether the file was flushed, is being written, or will be rebuilt', () => {
    expect(projectionsFlushState(file, BOOT).state).toBe('untracked');
    marker({ state: 'closed', boot_id: OTHER_BOOT, pid: 12 });
    expect(projectionsFlushState(file, BOOT)).toEqual({ state: 'closed', pid: 12, at: 'then' });
    marker({ state: 'open', boot_id: BOOT, pid: process.pid });
    expect(projectionsFlushState(file, BOOT).state).toBe('open');
    marker({ state: 'open', boot_id: BOOT, pid: deadPid() });
    expect(projectionsFlushState(file, BOOT).state).toBe('crashed');
    marker({ state: 'open', boot_id: OTHER_BOOT, pid: process.pid });
    expect(projectionsFlushState(file, BOOT).state).toBe('stale');
    fs.writeFileSync(sessionMarkerFile(file), '{');
    expect(projectionsFlushState(file, BOOT).state).toBe('stale');
    expect(describeFlushState(projectionsFlushState(file, BOOT))).toMatch(/next start rebuilds it from the log/);
  });
});
