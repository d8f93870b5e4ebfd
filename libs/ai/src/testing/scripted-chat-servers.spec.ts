import { ScriptedAnthropicServer } from './scripted-anthropic-server';
import { ScriptedOpenAIChatServer } from './scripted-openai-chat-server';

const post = (url: string, headers: Record<string, string>, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('the scripted chat servers', () => {
  it('openai: refuses a wrong key and unknown paths, answers from defaultReply when the queue is empty, records requests', async () => {
    const server = await ScriptedOpenAIChatServer.start({
      apiKey: 'k',
      defaultReply: (req) => ({ type: 'text', text: `echo ${req.body.messages.at(-1).content}`, stream: false }),
    });
    try {
      expect((await post(`${server.baseUrl}/chat/completions`, { authorization: 'Bearer nope' }, { messages: [] })).status).toBe(401);
      expect((await post(`${server.baseUrl}/embeddings`, { authorization: 'Bearer k' }, {})).status).toBe(404);
      server.enqueue({ type: 'text', text: 'queued', stream: false });
      const first = (await (await post(`${server.baseUrl}/chat/completions`, { authorization: 'Bearer k' }, { model: 'm', messages: [{ role: 'user', content: 'a' }] })).json()) as any;
      const second = (await (await post(`${server.baseUrl}/chat/completions`, { authorization: 'Bearer k' }, { model: 'm', messages: [{ role: 'user', content: 'b' }] })).json()) as any;
      expect(first.choices[0].message.content).toBe('queued');
      expect(second.choices[0].message.content).toBe('echo b');
      expect(server.pending).toBe(0);
      expect(server.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/embeddings', '/v1/chat/completions', '/v1/chat/completions']);
    } finally {
      await server.close();
    }
  });

  it('anthropic: refuses a request without anthropic-version, and closes with a request still hanging', async () => {
    const server = await ScriptedAnthropicServer.start({ apiKey: 'k' });
    const noVersion = await post(`${server.baseUrl}/v1/messages`, { 'x-api-key': 'k' }, { messages: [] });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as any).error.type).toBe('invalid_request_error');
    server.enqueue({ type: 'hang' });
    const hanging = post(`${server.baseUrl}/v1/messages`, { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' }, { messages: [] }).catch((e) => e);
    const { eventually } = await import('@strata/domain/testing/eventually');
    await eventually(() => server.requests.length === 2, { what: 'the hanging request arrived' });
    await server.close();
    expect(await hanging).toMatchObject({ message: 'fetch failed' });
  });
});
