const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` holds; fails naming `what` after `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(20);
  }
}
