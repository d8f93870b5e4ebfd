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

  it('keeps the text index on FTS5 alone unless postings are asked for, and refuses anything but true or false', () => {
    expect(loadConfig({}).textPostings).toBe(false);
    expect(loadConfig({ STRATA_TEXT_POSTINGS: 'true' }).textPostings).toBe(true);
    expect(() => loadConfig({ STRATA_TEXT_POSTINGS: '1' })).toThrow(/STRATA_TEXT_POSTINGS/);
  });

  it('gives the text index 256 MiB of term lists unless told otherwise, 0 turning them off, and refuses a negative size', () => {
    expect(loadConfig({}).textListsMb).toBe(256);
    expect(loadConfig({ STRATA_TEXT_LISTS_MB: '0' }).textListsMb).toBe(0);
    expect(() => loadConfig({ STRATA_TEXT_LISTS_MB: '-1' })).toThrow(/STRATA_TEXT_LISTS_MB/);
  });

  it('documents every variable it reads', () => {
    expect(CONFIG_DOC.map((d) => d.name)).toContain('STRATA_PROJECTIONS_SYNC');
  });
});

describe('loadConfig: the language model (STRATA_LLM_*)', () => {
  const openai = { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_KEY: 'k', STRATA_LLM_MODEL: 'gpt-x' };

  it('is unset by default, and offline needs nothing', () => {
    expect(loadConfig({}).llm).toMatchObject({ provider: null, model: null, models: [], maxTokens: 4096 });
    expect(loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm).toMatchObject({ provider: 'offline', model: 'offline', models: [] });
  });

  it('openai and anthropic need a key and a model, naming the variables', () => {
    expect(() => loadConfig({ STRATA_LLM_PROVIDER: 'openai' })).toThrow('STRATA_LLM_PROVIDER=openai needs STRATA_LLM_KEY and STRATA_LLM_MODEL');
    expect(() => loadConfig({ STRATA_LLM_PROVIDER: 'anthropic', STRATA_LLM_KEY: 'k' })).toThrow('STRATA_LLM_PROVIDER=anthropic needs STRATA_LLM_MODEL');
  });

  it('reads the vendor default URL, the models agents may name and the token limit', () => {
    expect(loadConfig(openai).llm).toMatchObject({ url: 'https://api.openai.com/v1', models: ['gpt-x'], maxTokens: 4096, timeoutMs: 60000, concurrency: 4 });
    expect(loadConfig({ ...openai, STRATA_LLM_MODELS: ' big, gpt-x ,small,,', STRATA_LLM_MAX_TOKENS: '512' }).llm).toMatchObject({ models: ['gpt-x', 'big', 'small'], maxTokens: 512 });
    expect(() => loadConfig({ ...openai, STRATA_LLM_MAX_TOKENS: '0' })).toThrow(/STRATA_LLM_MAX_TOKENS/);
    expect(CONFIG_DOC.map((d) => d.name)).toEqual(expect.arrayContaining(['STRATA_LLM_MODELS', 'STRATA_LLM_MAX_TOKENS']));
  });
});
