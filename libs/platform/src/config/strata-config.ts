import * as fs from 'node:fs';
import * as path from 'node:path';
import { PlanOverrides, parsePlanOverrides } from '@strata/auth/plans/plan-catalogue';

export const STRATA_CONFIG = Symbol('STRATA_CONFIG');

/** Every setting the service reads, from environment variables, validated at start-up. */
export interface StrataConfig {
  port: number;
  host: string;
  dataDir: string;
  /** STRATA_PROJECTIONS_SYNC: how the embedded projections file is flushed (see projections-session.ts) */
  projectionsSync: 'off' | 'normal';
  /** STRATA_TEXT_POSTINGS: embedded text index keeps postings of its own beside FTS5 (docs/search.md) */
  textPostings: boolean;
  /** STRATA_TEXT_LISTS_MB: memory for the embedded text index's term lists, 0 = none (docs/search.md) */
  textListsMb: number;
  store: 'embedded' | 'servers';
  kurrentdbUrl: string | null;
  mongoUrl: string | null;
  mongoDb: string;
  meiliUrl: string | null;
  meiliKey: string | null;
  qdrantUrl: string | null;
  qdrantKey: string | null;
  jwtSecret: string | null;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  rateLimitPerMinute: number | null;
  /** per-plan limit overrides (STRATA_PLAN_LIMITS), e.g. `{ free: { nodes: 1000 } }` */
  planLimits: PlanOverrides;
  embeddingProvider: 'builtin' | 'openai' | 'none';
  embeddingUrl: string | null;
  embeddingKey: string | null;
  embeddingModel: string | null;
  embeddingDimensions: number;
  /** STRATA_LLM_*: the one server-wide language model (REFERENCE §9.6); null provider = none configured */
  llm: LlmConfig;
  /** GET /metrics: `off` (404), `token` (Bearer STRATA_METRICS_TOKEN) or `public` */
  metrics: 'off' | 'token' | 'public';
  /** never logged or shown */
  metricsToken: string | null;
  /** STRATA_METRICS_PER_ORG: organization ids as a label on request counts (unbounded with tenants, so opt-in) */
  metricsPerOrg: boolean;
  /** STRATA_WORKER_METRICS_PORT: where the projection worker serves its own /metrics (servers mode) */
  workerMetricsPort: number;
  readWaitMs: number;
  logLevel: 'error' | 'warn' | 'log' | 'debug';
  /** STRATA_MCP_*: Strata's own MCP server and its connections to tool servers (REFERENCE §15) */
  mcp: McpConfig;
  /** STRATA_DASHBOARD_DIR: the built web app served at /app (default: dist/dashboard beside the service) */
  dashboardDir: string;
  /** STRATA_WEBHOOK_ALLOW_PRIVATE, STRATA_SMTP_*: briefing delivery (REFERENCE §12.7) */
  briefings: BriefingsConfig;
  /** STRATA_SCHEDULE_MIN_INTERVAL_S: the least time between two firings of an agent schedule */
  scheduleMinIntervalS: number;
  /** STRATA_JOB_RETENTION_DAYS: how long ended jobs are kept (REFERENCE §9.4: at least 7 days) */
  jobRetentionDays: number;
}

export interface BriefingsConfig {
  /** STRATA_WEBHOOK_ALLOW_PRIVATE: webhooks may target http:// and loopback or private addresses (self-hosted networks, tests) */
  webhookAllowPrivate: boolean;
  /** STRATA_SMTP_URL: `smtp://` or `smtps://`, credentials included; never logged or shown */
  smtpUrl: string | null;
  /** STRATA_SMTP_FROM: the From address of briefing e-mail */
  smtpFrom: string | null;
}

export interface McpConfig {
  /** Origins a browser may call `POST /mcp` from; any other Origin header is refused */
  allowedOrigins: string[];
  /** STRATA_MCP_ALLOW_PRIVATE: http:// and non-public addresses accepted for tool servers (self-hosted networks, tests) */
  allowPrivate: boolean;
  /** STRATA_SECRETS_KEY: 32 bytes, base64, sealing connection credentials; embedded default: generated into the data dir */
  secretsKey: string | null;
  /** STRATA_SECRETS_KEY_PREVIOUS: opens values sealed before a rotation */
  secretsKeyPrevious: string | null;
  /** STRATA_PUBLIC_URL: the service's public origin (OAuth redirect URI, client metadata document); null = the request's */
  publicUrl: string | null;
}

export interface LlmConfig {
  provider: 'openai' | 'anthropic' | 'offline' | null;
  url: string;
  /** never logged, never in a response, event or export */
  key: string | null;
  model: string | null;
  timeoutMs: number;
  concurrency: number;
  /** STRATA_LLM_MODELS: models agents may name, the default model first (empty without a chat model) */
  models: string[];
  /** STRATA_LLM_MAX_TOKENS: `max_tokens` of a call that does not say */
  maxTokens: number;
}

/** The README's configuration table is generated from this list, so keep descriptions short. */
export const CONFIG_DOC: { name: string; default: string; description: string }[] = [
  { name: 'PORT', default: '3000', description: 'HTTP port' },
  { name: 'HOST', default: '0.0.0.0', description: 'interface to listen on' },
  { name: 'STRATA_DATA_DIR', default: './data', description: 'embedded data: event log, projections, vector index, secrets' },
  { name: 'STRATA_PROJECTIONS_SYNC', default: 'off', description: 'embedded: `off` flushes the projections (a cache of the log) only on a clean stop, and rebuilds them from the log after a power loss; `normal` fsyncs them at checkpoints' },
  { name: 'STRATA_TEXT_POSTINGS', default: 'false', description: 'embedded, experimental: `true` keeps block-max postings (LSM segments, merged a bounded step per commit) beside FTS5 and ranks common words from them, exact either way; writes then cost about twice the service CPU per node (docs/search.md); `projections rebuild`/`verify` and the beside-build follow this setting; a data dir written without them answers through FTS5 until rebuilt' },
  { name: 'STRATA_TEXT_LISTS_MB', default: '256', description: 'embedded: memory (MiB) for per-word lists read from the full-text index and kept between searches, so common words rank without FTS5 scoring every match; nothing extra is written; `0` turns them off (docs/search.md)' },
  { name: 'STRATA_STORE', default: 'embedded', description: '`embedded` (SQLite, zero set-up) or `servers` (KurrentDB, MongoDB, Meilisearch, Qdrant)' },
  { name: 'STRATA_KURRENTDB_URL', default: '—', description: 'KurrentDB connection string (servers mode), e.g. `kurrentdb://localhost:2113?tls=false`' },
  { name: 'STRATA_MONGO_URL', default: '—', description: 'MongoDB URL (servers mode), a replica set' },
  { name: 'STRATA_MONGO_DB', default: 'strata', description: 'MongoDB database name' },
  { name: 'STRATA_MEILI_URL', default: '—', description: 'Meilisearch URL (servers mode)' },
  { name: 'STRATA_MEILI_KEY', default: '—', description: 'Meilisearch API key' },
  { name: 'STRATA_QDRANT_URL', default: '—', description: 'Qdrant URL (servers mode)' },
  { name: 'STRATA_QDRANT_KEY', default: '—', description: 'Qdrant API key' },
  { name: 'STRATA_JWT_SECRET', default: 'generated', description: 'JWT signing secret (≥ 32 chars); embedded: generated once into the data dir (mode 0600) when unset; servers: required, the same on every replica' },
  { name: 'STRATA_ACCESS_TOKEN_TTL', default: '900', description: 'access-token lifetime, seconds' },
  { name: 'STRATA_REFRESH_TOKEN_TTL', default: '2592000', description: 'refresh-token lifetime, seconds (30 days)' },
  { name: 'STRATA_RATE_LIMIT_PER_MINUTE', default: 'plan', description: 'requests per minute per credential; overrides the plan limit' },
  { name: 'STRATA_PLAN_LIMITS', default: '—', description: 'JSON overrides of plan limits, e.g. `{"free":{"nodes":1000,"requests_per_minute":300}}`' },
  { name: 'STRATA_EMBEDDING_PROVIDER', default: 'builtin', description: '`builtin` (offline lexical embedder), `openai` (OpenAI-compatible HTTP) or `none`' },
  { name: 'STRATA_EMBEDDING_URL', default: '—', description: 'base URL of the OpenAI-compatible embeddings API, e.g. `https://api.openai.com/v1`' },
  { name: 'STRATA_EMBEDDING_KEY', default: '—', description: 'API key for the embeddings provider' },
  { name: 'STRATA_EMBEDDING_MODEL', default: 'provider default', description: 'embedding model name' },
  { name: 'STRATA_EMBEDDING_DIMENSIONS', default: '384', description: 'dimensions of the default embedding configuration' },
  { name: 'STRATA_LLM_PROVIDER', default: '—', description: '`openai` (any OpenAI-compatible chat-completions API), `anthropic` (Messages API) or `offline` (in-process extractor); unset: routes that need a model answer 501 `llm_not_configured`' },
  { name: 'STRATA_LLM_URL', default: 'vendor URL', description: 'base URL: `openai` calls `<url>/chat/completions` (default `https://api.openai.com/v1`), `anthropic` calls `<url>/v1/messages` (default `https://api.anthropic.com`)' },
  { name: 'STRATA_LLM_KEY', default: '—', description: 'API key of the language-model provider (required for `openai` and `anthropic`)' },
  { name: 'STRATA_LLM_MODEL', default: '—', description: 'model name (required for `openai` and `anthropic`)' },
  { name: 'STRATA_LLM_TIMEOUT_MS', default: '60000', description: 'timeout of one model call, milliseconds' },
  { name: 'STRATA_LLM_CONCURRENCY', default: '4', description: 'model calls in flight per process' },
  { name: 'STRATA_LLM_MODELS', default: 'the model', description: 'comma-separated models managed agents may name (the `STRATA_LLM_MODEL` is always one)' },
  { name: 'STRATA_LLM_MAX_TOKENS', default: '4096', description: '`max_tokens` of one model call' },
  { name: 'STRATA_METRICS', default: 'off', description: '`GET /metrics` (Prometheus): `off`, `token` (needs `Authorization: Bearer <STRATA_METRICS_TOKEN>`) or `public` (anyone who reaches the port)' },
  { name: 'STRATA_METRICS_TOKEN', default: '—', description: 'bearer token for `GET /metrics` when `STRATA_METRICS=token` (at least 16 characters)' },
  { name: 'STRATA_METRICS_PER_ORG', default: 'false', description: '`true` adds `strata_org_http_requests_total{org,method,status}`: organization ids become label values, one series set per tenant' },
  { name: 'STRATA_WORKER_METRICS_PORT', default: '9464', description: 'port of the projection worker\'s `GET /metrics` (servers mode), under the same `STRATA_METRICS` and token rules' },
  { name: 'STRATA_READ_WAIT_MS', default: '2000', description: 'servers mode: how long a write waits for read models before answering with `X-Strata-Read-Lag`' },
  { name: 'STRATA_LOG_LEVEL', default: 'log', description: '`error`, `warn`, `log` or `debug`' },
  { name: 'STRATA_SECRETS_KEY', default: 'generated', description: 'MCP connection credentials are sealed with this key (32 bytes, base64; AES-256-GCM); embedded: generated once into the data dir (mode 0600) when unset; servers: required, the same on every replica' },
  { name: 'STRATA_SECRETS_KEY_PREVIOUS', default: '—', description: 'the key before a rotation: values it sealed are opened and sealed again with STRATA_SECRETS_KEY when next used' },
  { name: 'STRATA_DASHBOARD_DIR', default: 'dist/dashboard', description: 'the built web app served at `/app` (`npm run build` writes it)' },
  { name: 'STRATA_MCP_ALLOW_PRIVATE', default: 'false', description: '`true` lets MCP connections use http:// and loopback or private addresses (self-hosted networks, tests); otherwise only https:// to public addresses' },
  { name: 'STRATA_PUBLIC_URL', default: '—', description: 'the service\'s public URL (OAuth callback of MCP connections, client metadata document); unset: the request\'s origin' },
  { name: 'STRATA_WEBHOOK_ALLOW_PRIVATE', default: 'false', description: '`true` lets briefing webhooks target http:// and loopback or private addresses (self-hosted networks, tests); otherwise only https:// to public hosts' },
  { name: 'STRATA_SMTP_URL', default: '—', description: 'SMTP server of briefing e-mail, `smtp://` or `smtps://` (user and password in the URL); unset: e-mail schedules answer 501' },
  { name: 'STRATA_SMTP_FROM', default: '—', description: 'From address of briefing e-mail (needed with `STRATA_SMTP_URL`)' },
  { name: 'STRATA_SCHEDULE_MIN_INTERVAL_S', default: '300', description: 'agent schedules: the least time between two firings, seconds (checked over a pattern\'s next 1000 firings)' },
  { name: 'STRATA_JOB_RETENTION_DAYS', default: '8', description: 'days an ended job (completed, failed, cancelled) is kept before an hourly pruning forgets it; at least 7' },
  { name: 'STRATA_MCP_ALLOWED_ORIGINS', default: '—', description: 'comma-separated Origins allowed to call `POST /mcp` (a request with any other Origin header is refused)' },
];

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got '${raw}')`);
  return n;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[], def: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!allowed.includes(raw as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got '${raw}')`);
  return raw as T;
}

function url(env: NodeJS.ProcessEnv, name: string): string | null {
  const raw = env[name];
  if (!raw) return null;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got '${raw}')`);
  }
  return raw;
}

function planLimits(env: NodeJS.ProcessEnv): PlanOverrides {
  try {
    return parsePlanOverrides(env.STRATA_PLAN_LIMITS);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

const LLM_DEFAULT_URL = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com', offline: '' } as const;

function llmConfig(env: NodeJS.ProcessEnv): LlmConfig {
  const provider = env.STRATA_LLM_PROVIDER ? oneOf(env, 'STRATA_LLM_PROVIDER', ['openai', 'anthropic', 'offline'] as const, 'offline') : null;
  const cfg: LlmConfig = {
    provider,
    url: (url(env, 'STRATA_LLM_URL') ?? (provider ? LLM_DEFAULT_URL[provider] : '')).replace(/\/+$/, ''),
    key: env.STRATA_LLM_KEY || null,
    model: env.STRATA_LLM_MODEL || null,
    timeoutMs: int(env, 'STRATA_LLM_TIMEOUT_MS', 60000, 100, 3_600_000),
    concurrency: int(env, 'STRATA_LLM_CONCURRENCY', 4, 1, 256),
    models: [],
    maxTokens: int(env, 'STRATA_LLM_MAX_TOKENS', 4096, 1, 1_000_000),
  };
  if (provider === 'openai' || provider === 'anthropic') {
    const missing = [!cfg.key && 'STRATA_LLM_KEY', !cfg.model && 'STRATA_LLM_MODEL'].filter(Boolean);
    if (missing.length) throw new ConfigError(`STRATA_LLM_PROVIDER=${provider} needs ${missing.join(' and ')}`);
  }
  if (provider === 'offline') cfg.model = 'offline';
  if ((provider === 'openai' || provider === 'anthropic') && cfg.model) {
    const listed = (env.STRATA_LLM_MODELS ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    cfg.models = [...new Set([cfg.model, ...listed])];
  }
  return cfg;
}

function mcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const origins = (env.STRATA_MCP_ALLOWED_ORIGINS ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  const key = (name: string): string | null => {
    const raw = env[name]?.trim();
    if (!raw) return null;
    if (Buffer.from(raw, /[-_]/.test(raw) ? 'base64url' : 'base64').length !== 32) throw new ConfigError(`${name} must be 32 bytes in base64`);
    return raw;
  };
  return { allowedOrigins: origins, allowPrivate: oneOf(env, 'STRATA_MCP_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true', secretsKey: key('STRATA_SECRETS_KEY'), secretsKeyPrevious: key('STRATA_SECRETS_KEY_PREVIOUS'), publicUrl: url(env, 'STRATA_PUBLIC_URL')?.replace(/\/+$/, '') ?? null };
}

function briefingsConfig(env: NodeJS.ProcessEnv): BriefingsConfig {
  const smtpUrl = env.STRATA_SMTP_URL?.trim() || null;
  if (smtpUrl !== null && !/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) throw new ConfigError('STRATA_SMTP_URL must be an smtp:// or smtps:// URL');
  return { webhookAllowPrivate: oneOf(env, 'STRATA_WEBHOOK_ALLOW_PRIVATE', ['true', 'false'] as const, 'false') === 'true', smtpUrl, smtpFrom: env.STRATA_SMTP_FROM?.trim() || null };
}

/** `dist/dashboard` of the package this file belongs to (run from dist/ or, in tests, from the sources). */
function defaultDashboardDir(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'dashboard');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): StrataConfig {
  const store = oneOf(env, 'STRATA_STORE', ['embedded', 'servers'] as const, 'embedded');
  const cfg: StrataConfig = {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.STRATA_DATA_DIR || './data'),
    projectionsSync: oneOf(env, 'STRATA_PROJECTIONS_SYNC', ['off', 'normal'] as const, 'off'),
    textPostings: oneOf(env, 'STRATA_TEXT_POSTINGS', ['true', 'false'] as const, 'false') === 'true',
    textListsMb: int(env, 'STRATA_TEXT_LISTS_MB', 256, 0, 1_048_576),
    store,
    kurrentdbUrl: url(env, 'STRATA_KURRENTDB_URL'),
    mongoUrl: url(env, 'STRATA_MONGO_URL'),
    mongoDb: env.STRATA_MONGO_DB || 'strata',
    meiliUrl: url(env, 'STRATA_MEILI_URL'),
    meiliKey: env.STRATA_MEILI_KEY || null,
    qdrantUrl: url(env, 'STRATA_QDRANT_URL'),
    qdrantKey: env.STRATA_QDRANT_KEY || null,
    jwtSecret: env.STRATA_JWT_SECRET || null,
    accessTokenTtl: int(env, 'STRATA_ACCESS_TOKEN_TTL', 900, 10, 86400 * 7),
    refreshTokenTtl: int(env, 'STRATA_REFRESH_TOKEN_TTL', 2592000, 60, 86400 * 365),
    rateLimitPerMinute: env.STRATA_RATE_LIMIT_PER_MINUTE ? int(env, 'STRATA_RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000) : null,
    planLimits: planLimits(env),
    embeddingProvider: oneOf(env, 'STRATA_EMBEDDING_PROVIDER', ['builtin', 'openai', 'none'] as const, 'builtin'),
    embeddingUrl: url(env, 'STRATA_EMBEDDING_URL'),
    embeddingKey: env.STRATA_EMBEDDING_KEY || null,
    embeddingModel: env.STRATA_EMBEDDING_MODEL || null,
    embeddingDimensions: int(env, 'STRATA_EMBEDDING_DIMENSIONS', 384, 1, 8192),
    llm: llmConfig(env),
    metrics: oneOf(env, 'STRATA_METRICS', ['off', 'token', 'public'] as const, 'off'),
    metricsToken: env.STRATA_METRICS_TOKEN || null,
    metricsPerOrg: oneOf(env, 'STRATA_METRICS_PER_ORG', ['true', 'false'] as const, 'false') === 'true',
    workerMetricsPort: int(env, 'STRATA_WORKER_METRICS_PORT', 9464, 1, 65535),
    readWaitMs: int(env, 'STRATA_READ_WAIT_MS', 2000, 0, 60000),
    logLevel: oneOf(env, 'STRATA_LOG_LEVEL', ['error', 'warn', 'log', 'debug'] as const, 'log'),
    mcp: mcpConfig(env),
    dashboardDir: path.resolve(env.STRATA_DASHBOARD_DIR || defaultDashboardDir()),
    briefings: briefingsConfig(env),
    scheduleMinIntervalS: int(env, 'STRATA_SCHEDULE_MIN_INTERVAL_S', 300, 1, 366 * 86400),
    jobRetentionDays: int(env, 'STRATA_JOB_RETENTION_DAYS', 8, 7, 3650),
  };
  if (cfg.jwtSecret !== null && cfg.jwtSecret.length < 32) throw new ConfigError('STRATA_JWT_SECRET must be at least 32 characters');
  if (store === 'servers') {
    const missing = ['STRATA_KURRENTDB_URL', 'STRATA_MONGO_URL', 'STRATA_MEILI_URL', 'STRATA_QDRANT_URL'].filter((k) => !env[k]);
    if (missing.length) throw new ConfigError(`STRATA_STORE=servers needs ${missing.join(', ')}`);
    // replicas sign and verify each other's tokens: a secret generated per data dir would differ
    if (!cfg.jwtSecret) throw new ConfigError('STRATA_STORE=servers needs STRATA_JWT_SECRET (at least 32 characters, the same on every API replica)');
  }
  if (cfg.metrics === 'token' && (cfg.metricsToken ?? '').length < 16) throw new ConfigError('STRATA_METRICS=token needs STRATA_METRICS_TOKEN (at least 16 characters)');
  if (cfg.embeddingProvider === 'openai' && !cfg.embeddingUrl) throw new ConfigError('STRATA_EMBEDDING_PROVIDER=openai needs STRATA_EMBEDDING_URL');
  return cfg;
}
