/**
 * How many live connections one key (a credential, a session) holds at once. `acquire` answers
 * a release function, or null when the key is at its cap; releasing twice is harmless.
 */
export class ConnectionCaps {
  private readonly counts = new Map<string, number>();
  constructor(readonly max: number) {}

  acquire(key: string): (() => void) | null {
    const n = this.counts.get(key) ?? 0;
    if (n >= this.max) return null;
    this.counts.set(key, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  held(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/** the key a credential's connections are counted under: the API key, else the user */
export function credentialKey(auth: { api_key_id: string | null; user_id: string | null; org_id: string }): string {
  return auth.api_key_id ? `key:${auth.api_key_id}` : `user:${auth.user_id ?? 'unknown'}:${auth.org_id}`;
}
