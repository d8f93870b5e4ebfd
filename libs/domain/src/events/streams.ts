/**
 * Stream names (DESIGN rule 3). Graph data is namespaced by organization because uids are
 * unique within an organization only. The category (text before the first '-') groups them.
 */
export const Streams = {
  node: (org: string, uid: string) => `node-${org}:${uid}`,
  edge: (org: string, uid: string) => `edge-${org}:${uid}`,
  /** organization-wide graph facts: aliases, decay, embedding config, purge/clear markers */
  graph: (org: string) => `graph-${org}`,
  series: (org: string, uid: string) => `series-${org}:${uid}`,
  embedding: (org: string, uid: string) => `embedding-${org}:${uid}`,
  org: (org: string) => `org-${org}`,
  user: (id: string) => `user-${id}`,
  apiKey: (id: string) => `apikey-${id}`,
  job: (org: string, id: string) => `job-${org}:${id}`,
  /** an ontology schema with its object and relation types */
  ontologySchema: (org: string, id: string) => `ontschema-${org}:${id}`,
  ontologyProposal: (org: string, id: string) => `ontproposal-${org}:${id}`,
  /** one identity of one object type (`digest`: of the type id and the identity key), the lock of its duplicate check */
  ontologyIdentity: (org: string, digest: string) => `ontidentity-${org}:${digest}`,
  /** one endpoint of a relation type with a cardinality limit (`digest`: of the type id, the side and the uid), the lock of its check */
  ontologyRelationSlot: (org: string, digest: string) => `ontrelslot-${org}:${digest}`,
};
