import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { FixedClock } from '@strata/domain/time';
import { ONTOLOGY_TABLES } from '@strata/projections/ontology/ontology-schema';
import { startTestApp } from '../support/test-app';
import { api } from '../support/http';
import { clientServices, ok, world } from './ontology-fixture';
import { at } from '@strata/domain/testing/fixed-time';

function dumpOntology(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'projections.db'), { readonly: true });
  try {
    return JSON.stringify(ONTOLOGY_TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2`).all()]));
  } finally {
    db.close();
  }
}

/** The ontology read models are derived from the log: drop them, restart, and they are the same. */
describe('ontology projection rebuild', () => {
  it('rebuilds identical ontology rows and the same answers from the event log', async () => {
    const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    const t = await startTestApp({ clock });
    const dataDir = t.dataDir;
    try {
      const w = await world(t.url);
      const s = await clientServices(w.k);
      clock.advance(1);
      const archived = ok(await w.k.post('/v1/ontology/schemas', { name: 'old' }), 201);
      ok(await w.k.delete(`/v1/ontology/schemas/${archived.id}`), 200);
      ok(await w.k.patch(`/v1/ontology/schemas/${s.schema.id}/object-types/${s.client.id}`, { description: 'who we serve' }), 200);
      const acme = ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme', fields: { code: 'A' } }), 201);
      ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Acme again', fields: { code: 'A' }, allow_duplicate: true }), 201);
      const globex = ok(await w.k.post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'Globex', fields: { code: 'G' } }), 201);
      clock.advance(1);
      ok(await w.k.patch(`/v1/ontology/objects/${acme.uid}`, { reason: 'tier', expected_version: 1, fields: { tier: 'gold' } }), 200);
      ok(await w.k.post('/ontology/relation', { from_uid: acme.uid, to_uid: globex.uid, relation_type: 'partner_of' }), 201);
      ok(await w.k.delete(`/node/${globex.uid}`), 200);

      const views = async (url: string) => {
        const k = api(url, w.key);
        return JSON.stringify([
          (await k.get('/v1/ontology/schemas')).body,
          (await k.get(`/v1/ontology/schemas/${s.schema.id}`)).body,
          (await k.get('/v1/ontology/proposals')).body,
          (await k.get(`/ontology/objects?schema_id=${s.schema.id}&sort=canonical_name`)).body,
          (await k.get(`/ontology/object/${acme.uid}/history`)).body,
          (await k.post(`/v1/ontology/schemas/${s.schema.id}/duplicates/audit`, {})).body,
        ]);
      };
      const before = await views(t.url);
      await t.close({ keepData: true });
      const rowsBefore = dumpOntology(dataDir);
      expect(rowsBefore).toContain(acme.uid);

      for (const f of ['projections.db', 'projections.db-wal', 'projections.db-shm']) fs.rmSync(path.join(dataDir, f), { force: true });
      const t2 = await startTestApp({ dataDir, clock });
      try {
        expect(dumpOntology(dataDir)).toBe(rowsBefore);
        expect(await views(t2.url)).toBe(before);
        // the rebuilt identity index still refuses a duplicate
        const dup = await api(t2.url, w.key).post('/v1/ontology/objects', { schema_id: s.schema.id, object_type: 'Client', canonical_name: 'x', fields: { code: 'A' } });
        expect([dup.status, dup.body.code]).toEqual([409, 'duplicate_object']);
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
