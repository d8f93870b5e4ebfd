import { Api, api, signUpWithKey } from '../support/http';

/** A workspace with a write key, and helpers to build schemas through the API. */
export interface OntologyWorld {
  k: Api;
  org_id: string;
  access_token: string;
  key: string;
}

export async function world(url: string): Promise<OntologyWorld> {
  const s = await signUpWithKey(url);
  return { k: api(url, s.key), org_id: s.org_id, access_token: s.access_token, key: s.key };
}

export function ok<T = any>(res: { status: number; body: T; text: string }, status: number): T {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res.body;
}

/**
 * A client-services schema, active: Client (identity `code`, tier enum), Contract (refers to
 * a Client), Person (no identity fields), and relations `has_contract` (one_to_many),
 * `partner_of` (symmetric, one_to_one) and `works_with` (many_to_many).
 */
export async function clientServices(k: Api, opts: { activate?: boolean } = {}) {
  const schema = ok(await k.post('/v1/ontology/schemas', { name: 'Client services', description: 'who we serve' }), 201);
  const client = ok(
    await k.post(`/v1/ontology/schemas/${schema.id}/object-types`, {
      name: 'Client',
      fields: [
        { name: 'code', type: 'string', required: true },
        { name: 'tier', type: 'enum', enum: ['gold', 'silver'] },
        { name: 'employees', type: 'integer' },
        { name: 'since', type: 'date' },
      ],
      identity_fields: ['code'],
      aliases: ['customer'],
      extraction_hints: { categories: ['organization'] },
    }),
    201,
  );
  const contract = ok(
    await k.post(`/v1/ontology/schemas/${schema.id}/object-types`, {
      name: 'Contract',
      fields: [
        { name: 'number', type: 'string' },
        { name: 'client', type: 'reference', reference_object_type: 'Client' },
        { name: 'value', type: 'number' },
      ],
      required_fields: ['number', 'client'],
      identity_fields: ['number'],
    }),
    201,
  );
  const person = ok(
    await k.post(`/v1/ontology/schemas/${schema.id}/object-types`, {
      name: 'ClientContact',
      fields: [{ name: 'email', type: 'string' }],
      extraction_hints: { categories: ['person'] },
      review_policy: 'never',
    }),
    201,
  );
  const hasContract = ok(
    await k.post(`/v1/ontology/schemas/${schema.id}/relation-types`, { name: 'has_contract', source_type: 'Client', target_type: 'Contract', cardinality: 'one_to_many' }),
    201,
  );
  const partnerOf = ok(
    await k.post(`/v1/ontology/schemas/${schema.id}/relation-types`, { name: 'partner_of', source_type: 'Client', target_type: 'Client', symmetric: true, cardinality: 'one_to_one' }),
    201,
  );
  const worksWith = ok(
    await k.post(`/v1/ontology/schemas/${schema.id}/relation-types`, { name: 'works_with', source_type: 'ClientContact', target_type: 'Client', cardinality: 'many_to_many' }),
    201,
  );
  if (opts.activate !== false) ok(await k.post(`/v1/ontology/schemas/${schema.id}/activate`, {}), 200);
  return { schema, client, contract, person, hasContract, partnerOf, worksWith };
}
