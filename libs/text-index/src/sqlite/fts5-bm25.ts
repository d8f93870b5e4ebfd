/**
 * SQLite FTS5's bm25() (fts5_aux.c) computed outside FTS5, for an index that keeps postings of
 * its own and must stop early yet rank exactly as FTS5 does. Every operation is the C code's,
 * in its order, on IEEE doubles: weighted frequencies and token counts are small integers
 * (exact), so the only rounding that could differ is the logarithm's, which the caller takes
 * through SQLite's own `ln()` (the same libm): JavaScript's Math.log differed from it in the
 * last bit on 4 % of (query, row) pairs of mail text.
 */

/** FTS5's constants (fts5_aux.c). */
export const FTS5_BM25_K1 = 1.2;
export const FTS5_BM25_B = 0.75;

/** The column weights the text index passes to bm25(): label, summary, body. */
export const BM25_COLUMN_WEIGHTS = [10, 4, 1] as const;

/** A term's IDF as FTS5 computes it from the row count and the rows holding the term; `ln` must be SQLite's. */
export function fts5Idf(rows: number, docFreq: number, ln: (x: number) => number): number {
  const idf = ln((rows - docFreq + 0.5) / (docFreq + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;
}

/** Σ weight × occurrences over the columns (FTS5 adds one weight per instance). */
export function fts5WeightedFrequency(countsByColumn: readonly number[], weights: readonly number[] = BM25_COLUMN_WEIGHTS): number {
  let f = 0;
  for (let c = 0; c < countsByColumn.length; c++) for (let i = 0; i < countsByColumn[c]; i++) f += c < weights.length ? weights[c] : 1.0;
  return f;
}

/**
 * bm25() of one row, as FTS5 returns it (negative: lower is better). `idf[i]` and `freq[i]`
 * follow the phrases of the MATCH expression in order; `rowTokens` is the row's token count
 * over all columns, `avgdl` the table's tokens over its rows.
 */
export function fts5Bm25(idf: readonly number[], freq: readonly number[], rowTokens: number, avgdl: number): number {
  let score = 0.0;
  for (let i = 0; i < idf.length; i++) score += fts5Part(idf[i], freq[i], rowTokens, avgdl);
  return -1.0 * score;
}

/**
 * One phrase's term of bm25()'s sum (positive). Summing these in phrase order from 0.0 and
 * negating gives `fts5Bm25` bit for bit; a phrase the row lacks adds exactly 0.
 */
export function fts5Part(idf: number, freq: number, rowTokens: number, avgdl: number): number {
  const k1 = FTS5_BM25_K1;
  const b = FTS5_BM25_B;
  return idf * ((freq * (k1 + 1.0)) / (freq + k1 * (1 - b + (b * rowTokens) / avgdl)));
}

/**
 * An upper bound of one phrase's part of the score over postings whose weighted frequency is
 * at most `maxFreq` and whose row holds at least `minRowTokens` tokens, whatever avgdl: the
 * part grows with the frequency and shrinks with the row's length.
 */
export function fts5PartBound(idf: number, maxFreq: number, minRowTokens: number, avgdl: number): number {
  return -fts5Bm25([idf], [maxFreq], minRowTokens, avgdl);
}
