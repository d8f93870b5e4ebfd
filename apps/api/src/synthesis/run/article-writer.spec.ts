import { ChatModel, ChatRequest, ChatResponse } from '@strata/ai';
import { ArticleMaterial } from '@strata/domain/synthesis';
import { ArticleWriter } from './article-writer';

const material: ArticleMaterial = {
  project: { uid: 'p', label: 'Engines' },
  subject: { uid: 'ada', label: 'Ada', node_type: 'Person' },
  cluster: {
    cluster_id: 'cluster-1', size: 2, distinct_doc_count: 1, project_doc_count: 1, cohesion_score: 1, epistemic_density: 0, score: 1,
    breadth_score: 1, size_score: 1, dominant_entity_uid: 'ada', dominant_entity_label: 'Ada', dominant_entity_type: 'Person',
    sample_claims: [], epistemic_counts: { evidence: 0, arguments: 0, warrants: 0, theories_hypotheses: 0, contradicts_edges: 0 },
  },
  claims: [{ uid: 'c1', label: 'Ada built it', sources: ['Memoir'] }, { uid: 'c2', label: 'Ada led it', sources: ['Memoir'] }],
  tensions: [],
  claim_uids: ['c1', 'c2'],
};

/** A ChatModel that answers from a script and records what it was asked. */
class FakeChat implements ChatModel {
  readonly provider = 'openai' as const;
  readonly model = 'fake-1';
  readonly asked: ChatRequest[] = [];
  constructor(private readonly answers: unknown[]) {}
  async chat(req: ChatRequest): Promise<ChatResponse> {
    this.asked.push(JSON.parse(JSON.stringify({ ...req, signal: undefined })));
    const json = this.answers.shift();
    if (json instanceof Error) throw json;
    return { text: JSON.stringify(json), json, toolCalls: [], stopReason: 'end', usage: { inputTokens: 10, outputTokens: 5 } };
  }
}


describe('ArticleWriter', () => {
  it('offline: the structural article', async () => {
    const a = await new ArticleWriter(null).write(material);
    expect(a.generated_by).toBe('offline');
    expect(a.label).toBe('Synthesis: Ada');
    expect(a.content).toContain('- Ada built it (Memoir)');
  });

  it('with a chat model: the model writes it, asked for the article schema', async () => {
    const chat = new FakeChat([{ title: 'Ada and the engine', content: 'Ada built and led it.', questions: ['When?'] }]);
    const a = await new ArticleWriter(chat).write(material);
    expect(a).toEqual({ label: 'Ada and the engine', content: 'Ada built and led it.', questions: ['When?'], generated_by: 'openai:fake-1' });
    expect(chat.asked).toHaveLength(1);
    expect(chat.asked[0].output!.name).toBe('synthesis_article');
    expect(chat.asked[0].messages[0].content).toContain('Ada built it');
  });

  it('asks once more, naming the fault, when the answer does not fit; then gives up', async () => {
    const fixed = new FakeChat([{ title: '', content: 'x', questions: [] }, { title: 'Ada', content: 'Text.', questions: [] }]);
    expect((await new ArticleWriter(fixed).write(material)).label).toBe('Ada');
    expect(fixed.asked[1].messages.at(-1)!.content).toContain('title must be a non-empty string');
    const broken = new FakeChat([{ nope: 1 }, { nope: 2 }]);
    await expect(new ArticleWriter(broken).write(material)).rejects.toMatchObject({ name: 'StructuredOutputError', output: 'synthesis_article' });
    expect(broken.asked).toHaveLength(2);
  });

  it('a model failure is the run failure', async () => {
    const failing = new FakeChat([new Error('openai: HTTP 500')]);
    await expect(new ArticleWriter(failing).write(material)).rejects.toThrow('openai: HTTP 500');
  });
});
