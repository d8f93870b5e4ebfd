import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Heartbeat } from './heartbeat';

/**
 * Blocks this thread, as one long synchronous transaction does, until the worker has written
 * what `enough` asks for into `file` (bounded, so a broken worker fails the test instead of hanging it).
 */
function blockUntil(file: string, enough: (text: string) => boolean): string {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const text = fs.readFileSync(file, 'utf8');
    if (enough(text)) return text;
    if (performance.now() > deadline) throw new Error(`the heartbeat did not write enough while the thread was blocked: ${JSON.stringify(text)}`);
  }
}

describe('Heartbeat', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-heartbeat-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps saying how long a step runs while the main thread is blocked, and nothing once stopped', async () => {
    const file = path.join(dir, 'err');
    const fd = fs.openSync(file, 'w');
    try {
      const lines: string[] = [];
      const beat = new Heartbeat('writing', { isTTY: false, write: (t: string) => lines.push(t) }, { fd, everyMs: 50 });
      await beat.running;
      blockUntil(file, (text) => text.split('\n').length > 5);
      beat.stop();
      const atStop = fs.readFileSync(file, 'utf8');
      await beat.finished();
      const after = fs.readFileSync(file, 'utf8');
      expect(after).toBe(atStop);
      const beats = atStop.trim().split('\n');
      expect(beats.length).toBeGreaterThanOrEqual(5);
      expect(beats.every((l) => /^writing {2}0:0\d$/.test(l))).toBe(true);
      expect(lines).toEqual([]); // not a terminal: no line to end
    } finally {
      fs.closeSync(fd);
    }
  });

  it('redraws one line on a terminal and ends it when stopped', async () => {
    const file = path.join(dir, 'tty');
    const fd = fs.openSync(file, 'w');
    try {
      const out = { isTTY: true, columns: 0, text: '', write: (t: string) => (out.text += t) };
      const beat = new Heartbeat('committing', out, { fd, everyMs: 50 });
      await beat.running;
      blockUntil(file, (text) => text.split('\r').length > 3);
      beat.stop();
      await beat.finished();
      const drawn = fs.readFileSync(file, 'utf8');
      expect(drawn.startsWith('\rcommitting  0:00')).toBe(true);
      expect(drawn).not.toContain('\n');
      expect(drawn.split('\r').slice(1).every((l) => l.length === 79)).toBe(true);
      expect(out.text).toBe('\n');
    } finally {
      fs.closeSync(fd);
    }
  });

  it('writes nothing to a sink without a file descriptor', () => {
    const out = { isTTY: true, text: '', write: (t: string) => (out.text += t) };
    const beat = new Heartbeat('x', out);
    beat.stop();
    beat.stop();
    expect(out.text).toBe('');
  });
});
