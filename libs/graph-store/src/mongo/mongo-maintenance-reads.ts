import { Document } from 'mongodb';
import type { DecayCandidateRow, DecayScope, MaintenanceReads } from '../maintenance-reads.port';
import { MongoGraphStore } from './mongo-graph-store';
import { FindQuery, allUidsQuery, decayCandidateFromDocument, decayCandidatesQuery, tombstonedQuery } from './mongo-maintenance-queries';

/** Bulk reads of decay, purge and clear on the MongoDB read model (queries: mongo-maintenance-queries.ts). */
export class MongoMaintenanceReads implements MaintenanceReads {
  constructor(private readonly store: MongoGraphStore) {}

  async decayCandidates(org: string, scope: DecayScope): Promise<DecayCandidateRow[]> {
    const q = decayCandidatesQuery(org, scope);
    return q ? (await this.find('nodes', q)).map(decayCandidateFromDocument) : [];
  }

  async tombstonedUids(kind: 'nodes' | 'edges', org: string, cutoff: number | null): Promise<string[]> {
    return (await this.find(kind, tombstonedQuery(org, cutoff))).map((d) => d.uid as string);
  }

  async graphUids(org: string): Promise<{ nodes: string[]; edges: string[] }> {
    const [nodes, edges] = await Promise.all([this.find('nodes', allUidsQuery(org)), this.find('edges', allUidsQuery(org))]);
    return { nodes: nodes.map((d) => d.uid as string), edges: edges.map((d) => d.uid as string) };
  }

  private find(collection: 'nodes' | 'edges', q: FindQuery): Promise<Document[]> {
    return this.store.collection(collection).find(q.filter, { projection: q.projection }).sort(q.sort).allowDiskUse(true).toArray();
  }
}
