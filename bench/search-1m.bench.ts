import { runMillion } from './search.bench';

/** The mail corpus at a million nodes (opt-in: `BENCH_ONLY=search-1m`; see search.bench.ts). */
export function run(): Promise<Record<string, number>> {
  return runMillion();
}
