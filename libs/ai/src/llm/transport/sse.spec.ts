import { readSse } from './sse';

async function all(chunks: string[]) {
  const enc = new TextEncoder();
  const out = [];
  for await (const m of readSse((async function* () { for (const c of chunks) yield enc.encode(c); })())) out.push(m);
  return out;
}

describe('readSse', () => {
  it('splits messages on blank lines whatever the line ends and the chunking', async () => {
    expect(await all(['event: a\r', '\ndata: {"x":', '1}\r\n\r\n: comment\n\ndata: one\ndata: two\n\nid: 3\nretry: 5\ndata:no-space\r\rdata: last'])).toEqual([
      { event: 'a', data: '{"x":1}' },
      { data: 'one\ntwo' },
      { data: 'no-space' },
      { data: 'last' },
    ]);
  });

  it('keeps multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: café ✓\n\n');
    const out = [];
    for await (const m of readSse((async function* () { yield bytes.slice(0, 10); yield bytes.slice(10); })())) out.push(m);
    expect(out).toEqual([{ data: 'café ✓' }]);
  });

  it('skips events without data', async () => {
    expect(await all(['event: ping\n\n', 'data: x\n\n'])).toEqual([{ data: 'x' }]);
  });
});
