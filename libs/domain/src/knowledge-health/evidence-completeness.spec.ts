import { claimUnsupported, evidenceCompleteness } from './evidence-completeness';

describe('evidenceCompleteness (REFERENCE §14.1)', () => {
  it('is null without claims', () => {
    expect(evidenceCompleteness([])).toEqual({ value: null, claims: 0, evidenced: 0, sourced_only: 0, unsupported: 0 });
  });

  it('counts a sourced claim half, an evidenced one whole (evidence wins over sourcing), rounded to 4 decimals', () => {
    const r = evidenceCompleteness([
      { evidenced: true, sourced: true },
      { evidenced: false, sourced: true },
      { evidenced: false, sourced: false },
    ]);
    expect(r).toEqual({ value: 0.5, claims: 3, evidenced: 1, sourced_only: 1, unsupported: 1 });
    expect(evidenceCompleteness([{ evidenced: true, sourced: false }, { evidenced: false, sourced: false }, { evidenced: false, sourced: false }]).value).toBe(0.3333);
  });

  it('claim_unsupported: neither evidenced nor sourced', () => {
    expect(claimUnsupported({ evidenced: false, sourced: false })).toBe(true);
    expect(claimUnsupported({ evidenced: false, sourced: true })).toBe(false);
    expect(claimUnsupported({ evidenced: true, sourced: false })).toBe(false);
  });
});
