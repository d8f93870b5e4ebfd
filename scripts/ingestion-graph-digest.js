// The graph the offline ingestion of the bench document gives, in a canonical form: uids,
// times and ids replaced by what the records say (type, label, props), sorted, with a digest.
// Two builds that should extract the same graph print the same digest:
//   node scripts/ingestion-graph-digest.js [--root <a built checkout>] [--bytes 1048576] [--out listing.txt]
// It starts the built service (bench/support/server), ingests syntheticArticle(bytes) with
// STRATA_LLM_PROVIDER=offline, and reads the embedded read model's rows before stopping it.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const root = path.resolve(arg('root', path.join(__dirname, '..')));
const bytes = Number(arg('bytes', String(1024 * 1024)));
const out = arg('out', null);
const Database = require(path.join(root, 'node_modules/better-sqlite3'));
const { startServer } = require(path.join(root, 'dist/bench/support/server.js'));
const { syntheticArticle } = require(path.join(root, 'dist/bench/ingestion.bench.js'));

// props that differ between two runs of the same ingestion
const VOLATILE = (k) => /(_at|uid|_id)$/.test(k);
const clean = (o) => {
  if (o === null || typeof o !== 'object') return o;
  if (Array.isArray(o)) return o.map(clean);
  const r = {};
  for (const k of Object.keys(o).sort()) if (!VOLATILE(k)) r[k] = clean(o[k]);
  return r;
};

function graphDb(dataDir) {
  const files = [];
  const walk = (d) => fs.readdirSync(d).forEach((f) => (fs.statSync(path.join(d, f)).isDirectory() ? walk(path.join(d, f)) : files.push(path.join(d, f))));
  walk(dataDir);
  for (const f of files.filter((x) => x.endsWith('.db'))) {
    const db = new Database(f, { readonly: true, fileMustExist: true });
    if (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'nodes'").get()) return db;
    db.close();
  }
  throw new Error(`no graph read model under ${dataDir}`);
}

function canonical(db) {
  const key = new Map();
  const lines = [];
  const nodes = db.prepare('SELECT uid, doc FROM nodes WHERE tombstone_at IS NULL').all();
  for (const n of nodes) {
    const d = JSON.parse(n.doc);
    key.set(n.uid, `${d.node_type}|${d.label}`);
    lines.push(`N ${d.node_type}|${d.label}|${JSON.stringify(clean(d.props))}|${d.confidence}`);
  }
  const edges = db.prepare('SELECT doc FROM edges WHERE tombstone_at IS NULL').all();
  for (const e of edges) {
    const d = JSON.parse(e.doc);
    lines.push(`E ${d.edge_type} ${key.get(d.from_uid)} -> ${key.get(d.to_uid)} ${JSON.stringify(clean(d.props))} ${d.confidence}`);
  }
  const aliases = db.prepare('SELECT norm, canonical_uid, text FROM aliases').all();
  for (const a of aliases) lines.push(`A ${a.norm} ${key.get(a.canonical_uid)} ${a.text}`);
  lines.sort();
  return { lines, counts: { nodes: nodes.length, edges: edges.length, aliases: aliases.length } };
}

(async () => {
  const server = await startServer({ STRATA_LLM_PROVIDER: 'offline' });
  try {
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const res = await fetch(`${server.url}/ingest/document`, { method: 'POST', headers, body: JSON.stringify({ content: syntheticArticle(bytes), title: 'Bench' }) });
    if (res.status !== 202) throw new Error(`/ingest/document answered ${res.status}: ${await res.text()}`);
    const { job_id } = await res.json();
    let job;
    for (;;) {
      job = await (await fetch(`${server.url}/jobs/${job_id}`, { headers })).json();
      if (job.status === 'completed' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (job.status !== 'completed') throw new Error(`the job ${job.status}: ${job.error}`);
    const db = graphDb(server.dataDir);
    const { lines, counts } = canonical(db);
    db.close();
    if (out) fs.writeFileSync(out, lines.join('\n') + '\n');
    const digest = crypto.createHash('sha256').update(lines.join('\n')).digest('hex');
    console.log(JSON.stringify({ bytes, ...counts, digest }));
  } finally {
    await server.stop();
  }
})().catch((err) => {
  console.error(err);
  process.exit(1);
});
