import { abortable } from './abortable';

describe('abortable', () => {
  it('settles as the work does while the signal stays quiet', async () => {
    const c = new AbortController();
    await expect(abortable(Promise.resolve(3), c.signal)).resolves.toBe(3);
    await expect(abortable(Promise.reject(new Error('no')), c.signal)).rejects.toThrow('no');
  });

  it("rejects with the signal's reason as soon as it aborts, before the work settles", async () => {
    const c = new AbortController();
    let finish: (v: number) => void = () => undefined;
    const pending = abortable(new Promise<number>((r) => (finish = r)), c.signal);
    c.abort(new Error('stopped'));
    await expect(pending).rejects.toThrow('stopped');
    finish(1); // the late outcome is dropped
    const done = new AbortController();
    done.abort(new Error('already'));
    await expect(abortable(Promise.resolve(1), done.signal)).rejects.toThrow('already');
  });
});
