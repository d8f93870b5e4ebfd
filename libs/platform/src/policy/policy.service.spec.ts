import Database from 'better-sqlite3';
import { PolicyRecord } from '@strata/domain/governance';
import { policyRecord } from '@strata/domain/testing/policy-record';
import { EmbeddedProjectionRunner } from '@strata/projections/embedded/embedded-projection-runner';
import { GovernanceProjection } from '@strata/projections/governance/governance.projection';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { recordedEvent } from '@strata/projections/testing/projection-event-fixtures';
import { PolicyService } from './policy.service';

const policy = (uid: string): PolicyRecord => policyRecord({ uid, name: uid });

/** The governance projection inline on a projections database, as the embedded unit of work runs it. */
function setup() {
  const db = new Database(':memory:');
  const projection = new GovernanceProjection(db);
  const runner = new EmbeddedProjectionRunner(db, { headPositionSync: () => 0, *iterateAll() {} }, [projection]);
  const governance = new GovernanceReadModel(db);
  return { db, projection, runner, governance, policies: new PolicyService(governance) };
}

const modeChanged = (mode: string) => recordedEvent('GovernanceSettingsChanged', { org_id: 'o', changes: { mode: { from: 'enforce', to: mode } }, changed_by: 'u', at: 1 });
const policyCreated = (uid: string) => recordedEvent('PolicyCreated', { org_id: 'o', policy: policy(uid) });

describe('PolicyService cache', () => {
  it('reads the mode and policies once while governance does not change', () => {
    const { governance, policies } = setup();
    const settings = jest.spyOn(governance, 'settings');
    const list = jest.spyOn(governance, 'policies');
    for (let i = 0; i < 3; i++) {
      expect(policies.mode('o')).toBe('enforce');
      expect(policies.index('o').size).toBe(0);
    }
    expect(settings).toHaveBeenCalledTimes(1);
    expect(list).toHaveBeenCalledTimes(1);
  });

  it('sees a committed change of the mode or of the policies at the next read', () => {
    const { db, projection, policies } = setup();
    expect(policies.mode('o')).toBe('enforce');
    expect(policies.index('o').size).toBe(0);
    db.transaction(() => {
      projection.apply(modeChanged('shadow'));
      projection.apply(policyCreated('p1'));
    })();
    expect(policies.mode('o')).toBe('shadow');
    expect(policies.index('o').size).toBe(1);
  });

  it('forgets what it read inside a unit of work that was rolled back', () => {
    const { db, projection, runner, policies } = setup();
    expect(policies.mode('o')).toBe('enforce');
    db.exec('BEGIN IMMEDIATE');
    projection.apply(modeChanged('off'));
    projection.apply(policyCreated('p1'));
    // a later request of the same batch reads the change before the commit
    expect(policies.mode('o')).toBe('off');
    expect(policies.index('o').size).toBe(1);
    db.exec('ROLLBACK');
    runner.resetPosition(0);
    expect(policies.mode('o')).toBe('enforce');
    expect(policies.index('o').size).toBe(0);
  });
});
