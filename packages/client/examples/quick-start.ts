import { createStrataClient } from '../src';

/**
 * Quick start: create a node, read it back, find it by full-text search.
 * Run against a service with an API key: STRATA_URL=http://127.0.0.1:3000 STRATA_API_KEY=strata_… 
 */
export async function quickStart(baseUrl: string, apiKey: string) {
  const strata = createStrataClient(baseUrl, apiKey);

  const created = await strata.POST('/node', {
    body: { label: 'Ada Lovelace', node_type: 'Person', summary: 'Wrote the first published algorithm' },
  });
  if (!created.data) throw new Error(`create failed: ${created.response.status} ${JSON.stringify(created.error)}`);
  const uid = created.data.uid;

  const read = await strata.GET('/node/{uid}', { params: { path: { uid } } });
  if (!read.data) throw new Error(`read failed: ${read.response.status}`);

  const found = await strata.POST('/search', { body: { query: 'Lovelace', limit: 5 } });
  if (!found.data) throw new Error(`search failed: ${found.response.status}`);
  const hits = Array.isArray(found.data) ? found.data : found.data.results;

  return { created: created.data, read: read.data, hits };
}

if (require.main === module) {
  const { STRATA_URL, STRATA_API_KEY } = process.env;
  if (!STRATA_URL || !STRATA_API_KEY) throw new Error('set STRATA_URL and STRATA_API_KEY');
  quickStart(STRATA_URL, STRATA_API_KEY).then((r) => console.log(JSON.stringify(r, null, 2)));
}
