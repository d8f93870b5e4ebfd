import { JobRegistry } from './job-registry';

function registry() {
  let now = 1000;
  let n = 0;
  const clock = { now: () => now };
  const ids = { uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
  return { jobs: new JobRegistry(clock as never, ids as never), tick: () => (now += 1) };
}

describe('JobRegistry', () => {
  it('gives pending jobs their place in the queue of their organization only', () => {
    const { jobs, tick } = registry();
    const a = jobs.create('org-1', 'embed_all', 'a', 0);
    tick();
    const b = jobs.create('org-1', 'embed_all', 'b', 0);
    jobs.create('org-2', 'embed_all', 'other', 0);
    expect(jobs.get('org-1', b.id).queue_position).toBe(2);
    jobs.update(a, { status: 'processing' });
    expect(jobs.get('org-1', a.id)).not.toHaveProperty('queue_position');
    expect(jobs.get('org-1', b.id).queue_position).toBe(1);
  });

  it('keeps a cancelled job cancelled whatever its runner reports afterwards', () => {
    const { jobs } = registry();
    const a = jobs.create('org-1', 'embed_all', 'a', 3);
    jobs.update(a, { status: 'processing' });
    expect(jobs.cancel('org-1', a.id).status).toBe('cancelled');
    jobs.update(a, { status: 'completed', progress: { embedded_nodes: 3 } });
    expect(jobs.get('org-1', a.id)).toMatchObject({ status: 'cancelled', progress: { embedded_nodes: 0 } });
  });

  it('on clear, cancels the active jobs of the organization and forgets all of them', () => {
    const { jobs } = registry();
    const done = jobs.create('org-1', 'embed_all', 'done', 0);
    jobs.update(done, { status: 'completed' });
    const running = jobs.create('org-1', 'embed_all', 'running', 0);
    jobs.update(running, { status: 'processing' });
    const other = jobs.create('org-2', 'embed_all', 'other', 0);
    expect(jobs.cancelAndForget('org-1')).toBe(1);
    expect(running.status).toBe('cancelled');
    expect(() => jobs.get('org-1', done.id)).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(jobs.list('org-1', { limit: 50, offset: 0 }).items).toEqual([]);
    expect(jobs.get('org-2', other.id).status).toBe('pending');
  });
});
