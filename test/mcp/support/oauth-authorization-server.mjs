// A real OAuth 2.1 authorization server for the MCP OAuth tests: oidc-provider on loopback.
// oidc-provider is ESM only, so the (CommonJS) tests run this file as a child process; it prints
// one JSON line `{"issuer": …}` on stdout once it listens, and stops when stdin closes.
//
// argv[2] is a JSON object:
//   redirect_uris            the pre-registered public client's redirect URIs
//   client_metadata_document whether Client ID Metadata Documents are accepted
//   hosts                    {"https://public.origin": "http://127.0.0.1:port"}: where this server
//                            fetches a client metadata document from (the test's DNS)
//
// What the library does not decide, this file does: the user at the sign-in and consent page
// (its Approve and Deny buttons POST to /interaction/<uid>/approve or /deny), the resource server
// behind each resource indicator (scope `tools`, opaque tokens, one hour), and a log of what
// happened (`GET /__test/events`: grants served, clients registered, tokens issued and revoked),
// and its clock (`POST /__test/clock?advance_s=N`).
import * as http from 'node:http';
import Provider from 'oidc-provider';

const opts = JSON.parse(process.argv[2] ?? '{}');

// this server's clock, which the test moves (`POST /__test/clock?advance_s=N`) to let tokens
// expire; oidc-provider reads the time only through Date.now
let offsetMs = 0;
const realNow = Date.now;
Date.now = () => realNow() + offsetMs;
const events = [];

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: [
    { client_id: 'preregistered-client', token_endpoint_auth_method: 'none', redirect_uris: opts.redirect_uris ?? [], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    // the tool server, as a resource server: it introspects the tokens it is sent
    { client_id: 'tool-server', client_secret: 'tool-server-introspection-secret', redirect_uris: [], grant_types: [], response_types: [] },
  ],
  cookies: { keys: ['mcp-oauth-test-cookie-key'] },
  pkce: { required: () => true },
  scopes: ['openid', 'offline_access'],
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    revocation: { enabled: true },
    introspection: { enabled: true },
    clientIdMetadataDocument: { enabled: !!opts.client_metadata_document, ack: 'draft-02' },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resource) => ({ scope: 'tools', audience: resource, accessTokenTTL: 3600, accessTokenFormat: 'opaque' }),
    },
  },
  // a refresh token for every client allowed the grant, not only under `offline_access`
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  // a client metadata document of a public origin is read from where the test says it lives
  // (oidc-provider refuses loopback addresses for such fetches, rightly, outside a test)
  fetch: (url, init) => {
    delete init.dispatcher;
    let target = String(url);
    for (const [from, to] of Object.entries(opts.hosts ?? {})) if (target.startsWith(from)) target = to + target.slice(from.length);
    events.push({ type: 'client_metadata_document_fetched', url: String(url) });
    return fetch(target, init);
  },
});

provider.on('grant.success', (ctx) => events.push({ type: 'grant', grant_type: ctx.oidc.params.grant_type }));
provider.on('grant.error', (ctx, err) => events.push({ type: 'grant_refused', grant_type: ctx.oidc.params?.grant_type ?? null, error: err.error ?? 'error' }));
provider.on('registration_create.success', (_ctx, client) => events.push({ type: 'registered', client_id: client.clientId }));
// the secrets it hands out, so a test can look for them where they must never be
for (const kind of ['access_token', 'refresh_token', 'registration_access_token']) provider.on(`${kind}.saved`, (token) => events.push({ type: 'issued', kind, value: token.jti }));
provider.use(async (ctx, next) => {
  await next();
  if (ctx.oidc?.route === 'revocation' && ctx.status === 200) events.push({ type: 'revoked', token_type_hint: ctx.oidc.params?.token_type_hint ?? null });
});

async function interaction(req, res, uid, decision) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (decision === undefined) {
    // the sign-in and consent page: the user approves or denies
    const esc = (v) => String(v ?? '').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    const page = `<!doctype html><title>Authorize</title><h1>Authorize ${esc(details.params.client_id)}</h1>
<p>Scope: ${esc(details.params.scope)}; resource: ${esc(details.params.resource)}</p>
<form method="post" action="/interaction/${esc(uid)}/approve"><button type="submit">Approve</button></form>
<form method="post" action="/interaction/${esc(uid)}/deny"><button type="submit">Deny</button></form>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    return;
  }
  if (decision === 'deny') {
    await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the user refused' }, { mergeWithLastSubmission: false });
    return;
  }
  // the user signs in and consents to what the client asked for
  const accountId = 'test-user';
  const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
  if (details.params.scope) {
    const resource = details.params.resource;
    if (resource) grant.addResourceScope(resource, details.params.scope);
    else grant.addOIDCScope(details.params.scope);
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

const handle = provider.callback();
server.on('request', (req, res) => {
  const url = new URL(req.url ?? '/', issuer);
  if (url.pathname === '/__test/clock' && req.method === 'POST') {
    offsetMs += Number(url.searchParams.get('advance_s') ?? 0) * 1000;
    res.writeHead(204).end();
    return;
  }
  if (url.pathname === '/__test/events') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(events));
    return;
  }
  const m = url.pathname.match(/^\/interaction\/([^/]+)(?:\/(approve|deny))?$/);
  if (m) {
    interaction(req, res, m[1], m[2]).catch((err) => {
      if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'interaction_failed', error_description: String(err?.message ?? err) }));
    });
    return;
  }
  handle(req, res);
});

process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
