import { DomainError } from '@strata/domain/errors';
import type { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import type { OntologyReadModel } from '@strata/projections/ontology/ontology-read-model';
import { OntologyStore } from './ontology-store';

describe('OntologyStore in servers mode', () => {
  it('answers 503 unavailable (nothing written, retry) until the mirror has read the node streams, then reads the mirror', () => {
    const model = { schema: () => null } as unknown as OntologyReadModel;
    const mirror = { graphReady: false, ontologyReadModel: model } as unknown as AccountsMirror & { graphReady: boolean };
    const store = new OntologyStore(null, mirror, null);
    let err: unknown = null;
    try {
      store.assertAvailable();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DomainError);
    expect([(err as DomainError).status, (err as DomainError).toBody()]).toEqual([503, expect.objectContaining({ code: 'unavailable', retry_after: 1 })]);
    mirror.graphReady = true;
    expect(store.read).toBe(model);
    expect(() => store.schema('o', 's')).toThrow(expect.objectContaining({ status: 404 }));
  });
});
