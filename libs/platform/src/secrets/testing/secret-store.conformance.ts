/// <reference types="jest" />
import { randomBytes } from 'node:crypto';
import { SecretCipher } from '../secret-cipher';
import { SecretStore } from '../secret-store.port';

export interface SecretStoreFixture {
  /** a store over the fixture's one storage, sealing with `cipher` */
  open(cipher: SecretCipher): SecretStore;
  /** the stored sealed value, or null */
  raw(orgId: string, connectionId: string): Promise<string | null>;
  cleanup(): Promise<void>;
}

/** What every secret store does, embedded or servers. */
export function describeSecretStoreConformance(name: string, make: () => Promise<SecretStoreFixture>): void {
  describe(`${name} (secret store conformance)`, () => {
    let f: SecretStoreFixture;
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    beforeEach(async () => {
      f = await make();
    });
    afterEach(() => f.cleanup());

    it('keeps a connection\'s secrets sealed at rest and gives them back', async () => {
      const store = f.open(new SecretCipher(keyA));
      const token = `tok_${randomBytes(16).toString('hex')}`;
      await store.put('org-1', 'conn-1', { token, 'header:X-Api-Key': 'v' });
      expect(await store.get('org-1', 'conn-1')).toEqual({ token, 'header:X-Api-Key': 'v' });
      const raw = await f.raw('org-1', 'conn-1');
      expect(raw).toMatch(/^v1\./);
      expect(raw).not.toContain(token);
      expect(raw).not.toContain(Buffer.from(token).toString('base64'));
      await store.put('org-1', 'conn-1', { token: 'replaced' });
      expect(await store.get('org-1', 'conn-1')).toEqual({ token: 'replaced' });
    });

    it('keys by organization and connection', async () => {
      const store = f.open(new SecretCipher(keyA));
      await store.put('org-1', 'conn-1', { token: 'one' });
      await store.put('org-2', 'conn-1', { token: 'two' });
      expect(await store.get('org-1', 'conn-1')).toEqual({ token: 'one' });
      expect(await store.get('org-2', 'conn-1')).toEqual({ token: 'two' });
      expect(await store.get('org-1', 'conn-2')).toBeNull();
    });

    it('destroys for good', async () => {
      const store = f.open(new SecretCipher(keyA));
      await store.put('org-1', 'conn-1', { token: 'x' });
      await store.destroy('org-1', 'conn-1');
      expect(await store.get('org-1', 'conn-1')).toBeNull();
      expect(await f.raw('org-1', 'conn-1')).toBeNull();
      await store.destroy('org-1', 'conn-1');
    });

    it('rotates: the previous key opens, the value is sealed again with the current key when read', async () => {
      await f.open(new SecretCipher(keyA)).put('org-1', 'conn-1', { token: 'old' });
      const before = await f.raw('org-1', 'conn-1');
      expect(() => f.open(new SecretCipher(keyB))).not.toThrow();
      await expect(f.open(new SecretCipher(keyB)).get('org-1', 'conn-1')).rejects.toThrow(/neither/);
      const rotating = f.open(new SecretCipher(keyB, keyA));
      expect(await rotating.get('org-1', 'conn-1')).toEqual({ token: 'old' });
      const after = await f.raw('org-1', 'conn-1');
      expect(after).not.toBe(before);
      // the previous key is no longer needed
      expect(await f.open(new SecretCipher(keyB)).get('org-1', 'conn-1')).toEqual({ token: 'old' });
    });
  });
}
