import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SecretCipher } from './secret-cipher';
import { SECRETS_FILE, SqliteSecretStore } from './sqlite-secret-store';
import { describeSecretStoreConformance } from './testing/secret-store.conformance';

describeSecretStoreConformance('SqliteSecretStore', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-secrets-'));
  const opened: SqliteSecretStore[] = [];
  return {
    open: (cipher) => {
      const s = new SqliteSecretStore(dir, cipher);
      opened.push(s);
      return s;
    },
    raw: async (org, conn) => opened[opened.length - 1].rawSealed(org, conn),
    cleanup: async () => {
      for (const s of opened) s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteSecretStore file', () => {
  it('is readable by its owner only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-secrets-'));
    const s = new SqliteSecretStore(dir, new SecretCipher(Buffer.alloc(32, 1)));
    expect(fs.statSync(path.join(dir, SECRETS_FILE)).mode & 0o077).toBe(0);
    s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
