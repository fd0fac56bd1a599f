// A real OAuth 2.1 authorization server for the end-to-end tests of wasmcp as
// a resource server: the certified OpenID provider `oidc-provider`, on
// 127.0.0.1, configured as an identity provider in front of MCP servers is
// (README, "Authorization"): resource indicators (RFC 8707) with JWT access
// tokens whose audience is the MCP server's resource, client credentials,
// authorization code with PKCE, dynamic client registration, introspection
// and revocation.
//
//   node authorization-server.mjs [--port N]
//
// It prints its issuer URL on a line of its own once it listens. Resource
// servers are registered on standard input, a line `resource URL` each
// (answered by the same line on standard output once registered): their
// ports are only known once they run. The first one registered is the
// resource of a token request that names none (go-sdk's client-credentials
// handler sends no `resource`).
//
// Clients (secret: the client id followed by "-secret"):
//   svc-reader  client credentials; may get tools:read
//   svc-writer  client credentials; may get tools:read tools:write
//   svc-short   client credentials; tools:read, tokens live one second
//   svc-opaque  client credentials; tools:read, opaque tokens (introspected)
//   wasmcp      no grant: the resource server's credentials for introspection
//   mcp-app     a public client (PKCE, no secret) of the authorization code
//               grant, redirecting to http://127.0.0.1:1/callback
// and any client registered dynamically. The last two may get every scope.
//
// Users log in by name at /interaction/UID: POST /interaction/UID/login with
// login=NAME, then POST /interaction/UID/consent with scope=... (the scopes
// granted; all requested when absent, the others are refused). GET
// /interaction/UID answers the prompt as JSON. There is no password: the test
// plays the user. alice is in the group "engineering", bob in none; the
// groups claim rides in their access tokens. Consent is asked at every
// authorization, so that a client stepping up asks the user again.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

import Provider, { errors } from 'oidc-provider';

const { values: opts } = parseArgs({ options: { port: { type: 'string', default: '0' } } });

const scopes = ['tools:read', 'tools:write'];
const groups = { alice: ['engineering'], bob: [] };
const resources = [];

// What each pre-registered client may get for a resource; clients
// registered dynamically may get every scope.
const clientScopes = {
  'svc-reader': 'tools:read',
  'svc-writer': 'tools:read tools:write',
  'svc-short': 'tools:read',
  'svc-opaque': 'tools:read',
};

function ccClient(id) {
  return {
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  };
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'e2e-rs256', use: 'sig', alg: 'RS256' };

const configuration = {
  clients: [
    ...Object.keys(clientScopes).map(ccClient),
    { ...ccClient('wasmcp'), grant_types: [] },
    {
      client_id: 'mcp-app',
      application_type: 'native',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://127.0.0.1:1/callback'],
      token_endpoint_auth_method: 'none',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'offline_access', ...scopes],
  // The groups claim rides in users' access tokens, for views that match it.
  async extraTokenClaims(_ctx, token) {
    return token.accountId ? { groups: groups[token.accountId] ?? [] } : undefined;
  },
  async findAccount(_ctx, id) {
    if (!(id in groups)) return undefined;
    return { accountId: id, claims: async () => ({ sub: id }) };
  },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A request that names no resource is for the first one registered.
      async defaultResource(_ctx, _client, oneOf) {
        return oneOf ?? resources[0];
      },
      // Tokens for a registered resource are JWTs whose audience is the
      // resource, with the scopes the client may get.
      async getResourceServerInfo(_ctx, indicator, client) {
        if (!resources.includes(indicator)) throw new errors.InvalidTarget(`unknown resource ${indicator}`);
        const id = client.clientId;
        return {
          scope: clientScopes[id] ?? scopes.join(' '),
          audience: indicator,
          accessTokenFormat: id === 'svc-opaque' ? 'opaque' : 'jwt',
          accessTokenTTL: id === 'svc-short' ? 1 : 600,
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  // Consent is asked at every authorization (only the grant of the
  // interaction that just finished counts), so that a step-up asks again.
  async loadExistingGrant(ctx) {
    const id = ctx.oidc.result?.consent?.grantId;
    return id ? ctx.oidc.provider.Grant.find(id) : undefined;
  },
  ttl: {
    AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 600,
    ClientCredentials: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? 600,
    Grant: 600,
    Interaction: 600,
    Session: 600,
    IdToken: 600,
    RefreshToken: 600,
  },
};

// interactions answers the login and consent prompts the test drives.
async function interactions(provider, ctx, next) {
  const m = /^\/interaction\/([\w-]+)(?:\/(login|consent))?$/.exec(ctx.path);
  if (!m) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res);
  const { prompt, params, session } = details;
  if (ctx.method === 'GET' && !m[2]) {
    ctx.body = { uid: details.uid, prompt: prompt.name, details: prompt.details, params };
    return undefined;
  }
  if (ctx.method !== 'POST' || m[2] !== prompt.name) ctx.throw(400, `this interaction is at the ${prompt.name} prompt`);
  const form = new URLSearchParams(await readBody(ctx.req));
  if (prompt.name === 'login') {
    const login = form.get('login');
    if (!(login in groups)) ctx.throw(400, `no user ${login}`);
    return provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  const grant = new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
  const chosen = form.has('scope') ? new Set(form.get('scope').split(' ')) : undefined;
  for (const [indicator, missing] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
    const granted = missing.filter((s) => !chosen || chosen.has(s));
    const refused = missing.filter((s) => chosen && !chosen.has(s));
    if (granted.length) grant.addResourceScope(indicator, granted.join(' '));
    if (refused.length) grant.rejectResourceScope(indicator, refused.join(' '));
  }
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      body += d;
      if (body.length > 1 << 16) reject(new Error('form too large'));
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

// The issuer is the address listened on, so the server listens first and
// builds the provider once it knows its port.
let handler = (_req, res) => {
  res.statusCode = 503;
  res.end();
};
const server = createServer((req, res) => handler(req, res));
server.listen(Number(opts.port), '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, configuration);
  provider.use((ctx, next) => interactions(provider, ctx, next));
  handler = provider.callback();
  process.stdout.write(`${issuer}\n`);
});

createInterface({ input: process.stdin }).on('line', (line) => {
  const [verb, url] = line.trim().split(/\s+/);
  if (verb !== 'resource' || !URL.canParse(url)) {
    process.stderr.write(`authorization-server: ignored input line ${JSON.stringify(line)}\n`);
    return;
  }
  if (!resources.includes(url)) resources.push(url);
  process.stdout.write(`resource ${url}\n`);
});

// The test ends it with SIGTERM, or by closing its standard input.
process.stdin.on('end', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
