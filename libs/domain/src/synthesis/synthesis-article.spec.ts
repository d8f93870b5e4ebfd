import { ClaimGroup, claimGroups } from './claim-clusters';
import { ProjectCorpus } from './project-corpus';
import { DEFAULT_TARGET_TYPES } from './signal-request';
import { articleMaterial, articlePrompt, pickGroups, readModelArticle, structuralArticle, subjectOf } from './synthesis-article';

function corpus(): ProjectCorpus {
  const nodes = [
    ['ada', 'Person', 'Ada'],
    ['c1', 'Claim', 'Ada built the engine'],
    ['c2', 'Claim', 'Ada designed the engine'],
    ['c3', 'Claim', 'Ada never built an engine'],
    ['th', 'Theory', 'Great inventor theory'],
  ];
  const docsOf: [string, string[]][] = [['ada', ['d1', 'd2']], ['c1', ['d1']], ['c2', ['d1', 'd2']], ['c3', ['d2']], ['th', ['d1']]];
  return {
    project_uid: 'p',
    documents: [{ uid: 'd1', label: 'Memoir' }, { uid: 'd2', label: 'Letters' }],
    nodes: new Map(nodes.map(([uid, node_type, label]) => [uid, { uid, node_type, label, summary: '' }])),
    docsOf: new Map(docsOf.map(([u, ds]) => [u, new Set(ds)])),
    edges: [
      { uid: 'e1', from_uid: 'c1', edge_type: 'About', to_uid: 'ada' },
      { uid: 'e2', from_uid: 'c2', edge_type: 'About', to_uid: 'ada' },
      { uid: 'e3', from_uid: 'c3', edge_type: 'About', to_uid: 'ada' },
      { uid: 'e4', from_uid: 'c3', edge_type: 'Contradicts', to_uid: 'c1' },
      { uid: 'e5', from_uid: 'c1', edge_type: 'Supports', to_uid: 'th' },
      { uid: 'e6', from_uid: 'c2', edge_type: 'Supports', to_uid: 'th' },
    ],
    vectors: new Map(),
  };
}

describe('synthesis articles', () => {
  const c = corpus();
  const groups = claimGroups(c, DEFAULT_TARGET_TYPES);
  const adas = groups.find((g) => g.claim_uids.length === 3)!;

  it('one Article per subject: the dominant entity, best clusters first', () => {
    // both hubs' clusters are dominated by Ada (she has the most claims in each)
    expect(groups.map((g) => subjectOf(c, g).uid)).toEqual(['ada', 'ada']);
    expect(pickGroups(c, groups)).toEqual([groups[0]]);
    expect(pickGroups(c, groups, 0)).toEqual([]);
  });

  it('writes the structural text deterministically: subject, claims with sources, tensions', () => {
    const m = articleMaterial(c, adas, { uid: 'p', label: 'Engines' });
    expect(m.claim_uids).toEqual(['c1', 'c2', 'c3']);
    const a = structuralArticle(m);
    expect(a).toEqual(structuralArticle(articleMaterial(c, adas, { uid: 'p', label: 'Engines' })));
    expect(a.label).toBe('Synthesis: Ada');
    expect(a.content.split('\n')).toEqual([
      '# Ada',
      '',
      '3 claims from 2 of the 2 documents of Engines concern Ada (Person).',
      '',
      '## Claims',
      '',
      '- Ada designed the engine (Letters; Memoir)',
      '- Ada built the engine (Memoir)',
      '- Ada never built an engine (Letters)',
      '',
      '## Tensions',
      '',
      '- "Ada never built an engine" contradicts "Ada built the engine"',
      '',
      '## Support',
      '',
      'Evidence 0, arguments 0, warrants 0, theories and hypotheses 1, contradictions 1.',
    ]);
    expect(a.questions).toEqual(['Which holds: "Ada never built an engine" or "Ada built the engine"?']);
  });

  it('without tensions it says so and asks an open question', () => {
    const g: ClaimGroup = { ...adas, claim_uids: ['c2'], cluster: { ...adas.cluster, size: 1 } };
    const a = structuralArticle(articleMaterial(c, g, { uid: 'p', label: 'Engines' }));
    expect(a.content).toContain('- None recorded among these claims.');
    expect(a.questions).toEqual(['What else is known about Ada?']);
  });

  it('the prompt carries the claims and tensions, no uids', () => {
    const p = articlePrompt(articleMaterial(c, adas, { uid: 'p', label: 'Engines' }));
    const user = JSON.parse(p.user);
    expect(user.subject).toEqual({ label: 'Ada', type: 'Person' });
    expect(user.claims[0]).toEqual({ text: 'Ada designed the engine', sources: ['Letters', 'Memoir'] });
    expect(user.tensions).toEqual([{ relation: 'Contradicts', from: 'Ada never built an engine', to: 'Ada built the engine' }]);
    expect(p.user).not.toContain('c1');
  });

  it.each([
    [{ title: ' T ', content: ' body ', questions: [' q? ', ''] }, { article: { label: 'T', content: 'body', questions: ['q?'] } }],
    [{ title: 'T', content: 'b', questions: ['1', '2', '3', '4', '5', '6'] }, { article: { label: 'T', content: 'b', questions: ['1', '2', '3', '4', '5'] } }],
    [null, { error: 'the answer is not a JSON object' }],
    [[1], { error: 'the answer is not a JSON object' }],
    [{ title: '', content: 'b', questions: [] }, { error: 'title must be a non-empty string' }],
    [{ title: 'T', content: 3, questions: [] }, { error: 'content must be a non-empty string' }],
    [{ title: 'T', content: 'b', questions: [1] }, { error: 'questions must be an array of strings' }],
  ])('reads a model answer %p', (json, expected) => {
    expect(readModelArticle(json)).toEqual(expected);
  });
});
