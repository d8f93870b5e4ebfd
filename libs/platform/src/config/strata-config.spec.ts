import { CONFIG_DOC, ConfigError, loadConfig } from './strata-config';

describe('loadConfig', () => {
  it('flushes the embedded projections only on a clean stop unless told otherwise', () => {
    expect(loadConfig({}).projectionsSync).toBe('off');
    expect(loadConfig({ STRATA_PROJECTIONS_SYNC: 'normal' }).projectionsSync).toBe('normal');
  });

  it('refuses a projections sync mode it does not know, naming the variable', () => {
    expect(() => loadConfig({ STRATA_PROJECTIONS_SYNC: 'full' })).toThrow(ConfigError);
    expect(() => loadConfig({ STRATA_PROJECTIONS_SYNC: 'full' })).toThrow(/STRATA_PROJECTIONS_SYNC/);
  });

  it('documents every variable it reads', () => {
    expect(CONFIG_DOC.map((d) => d.name)).toContain('STRATA_PROJECTIONS_SYNC');
  });
});
