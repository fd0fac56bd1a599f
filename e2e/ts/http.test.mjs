// End-to-end tests of `wasmcp serve --http` with the official TypeScript MCP
// SDK client over Streamable HTTP, as a remote MCP host would use it.
//
// make test runs them with `node --test` and these variables:
//   WASMCP_BIN      the wasmcp binary
//   WASMCP_PLUGINS  the directory of bundled modules (make plugins)
// The hot reload test assembles ../testdata/hello.wat with wat2wasm.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const bin = process.env.WASMCP_BIN;
const plugins = process.env.WASMCP_PLUGINS;
if (!bin || !plugins) {
  throw new Error('set WASMCP_BIN and WASMCP_PLUGINS (make test does)');
}
const testdata = join(dirname(fileURLToPath(import.meta.url)), '..', 'testdata');

// Generous bounds against hangs only; nothing asserts on time.
const timeout = 120_000;
// The token is handed to the server in an environment variable, as an
// operator would; it never appears on its command line.
const token = 'ts-e2e-0123456789abcdef0123456789abcdef';

let work; // temporary directory of this run
let served; // the directory the server serves: a copy of the bundled modules
let server; // the wasmcp child process
let exited; // resolves with the server's exit code
let url; // the MCP endpoint
let client;
let transport;
let stderr = '';
let toolsChanged; // resolves on the next notifications/tools/list_changed

function expectToolsChanged() {
  let resolve;
  toolsChanged = new Promise((r) => { resolve = r; });
  return resolve;
}

// serving resolves with the endpoint once the server logs that it serves.
function serving() {
  return new Promise((resolve, reject) => {
    const onData = (d) => {
      stderr += d;
      const m = /serving over HTTP.*?url=(http:\/\/\S+)/.exec(stderr);
      if (m) {
        server.stderr.off('data', onData);
        server.stderr.on('data', (more) => { stderr += more; });
        resolve(m[1]);
      }
    };
    server.stderr.on('data', onData);
    exited.then((code) => reject(new Error(`server exited (${code}) before serving:\n${stderr}`)));
  });
}

function connect(headers) {
  const t = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const c = new Client({ name: 'wasmcp-e2e-ts-http', version: '1.0.0' });
  return { t, c };
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'wasmcp-e2e-ts-http-'));
  served = join(work, 'served');
  mkdirSync(served);
  for (const f of readdirSync(plugins).filter((f) => f.endsWith('.wasm'))) {
    copyFileSync(join(plugins, f), join(served, f));
  }
  execFileSync('wat2wasm', [join(testdata, 'hello.wat'), '-o', join(work, 'hello.wasm')]);

  server = spawn(bin, [
    'serve', '--dir', served, '--cache-dir', join(work, 'cache'),
    '--http', '127.0.0.1:0', '--token-env', 'WASMCP_TS_TOKEN',
  ], { env: { ...process.env, WASMCP_TS_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
  exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(code ?? signal)));
  url = await serving();

  ({ t: transport, c: client } = connect({ Authorization: `Bearer ${token}` }));
  let notify = expectToolsChanged();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notify();
    notify = expectToolsChanged();
  });
  await client.connect(transport, { timeout });
});

after(async () => {
  await client?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    const code = await exited;
    assert.equal(code, 0, `wasmcp did not exit cleanly on SIGTERM:\n${stderr}`);
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

function textOf(res) {
  return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function call(name, args) {
  return client.callTool({ name, arguments: args }, undefined, { timeout });
}

function diagnose(fn) {
  return async (t) => {
    try {
      await fn(t);
    } catch (e) {
      e.message += `\nserver log:\n${stderr}`;
      throw e;
    }
  };
}

test('initialize over HTTP gives a session and advertises listChanged', { timeout }, () => {
  assert.equal(client.getServerCapabilities().tools?.listChanged, true);
  assert.equal(client.getServerVersion().name, 'wasmcp');
  assert.ok(transport.sessionId, 'no Mcp-Session-Id');
});

test('tools/list and tools/call over HTTP', { timeout }, diagnose(async () => {
  const { tools } = await client.listTools({}, { timeout });
  const names = tools.map((t) => t.name);
  for (const name of ['echo', 'get-sum', 'jq', 'hash']) {
    assert.ok(names.includes(name), `${name} missing from ${names}`);
  }
  const res = await call('echo', { message: 'hello over http' });
  assert.notEqual(res.isError, true, textOf(res));
  assert.equal(textOf(res), 'Echo: hello over http');
  const sum = await call('get-sum', { a: 7, b: 5 });
  assert.equal(textOf(sum), 'The sum of 7 and 5 is 12.');
}));

test('without the token the server answers 401 with a Bearer challenge', { timeout }, diagnose(async () => {
  const { t, c } = connect({});
  await assert.rejects(c.connect(t, { timeout }), /401|Unauthorized/i);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="wasmcp"');
}));

test('a cross-origin request is refused', { timeout }, diagnose(async () => {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${token}`,
      Origin: 'http://evil.example',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  assert.equal(res.status, 403);
}));

test('a module dropped in and deleted arrives and leaves with list_changed', { timeout }, diagnose(async () => {
  const before = await client.listTools({}, { timeout });
  assert.ok(!before.tools.some((t) => t.name === 'hello'));

  let changed = toolsChanged;
  copyFileSync(join(work, 'hello.wasm'), join(served, '.hello.partial'));
  renameSync(join(served, '.hello.partial'), join(served, 'hello.wasm'));
  await changed;
  let { tools } = await client.listTools({}, { timeout });
  assert.ok(tools.some((t) => t.name === 'hello'), 'hello not listed after list_changed');
  assert.equal(textOf(await call('hello', {})), 'hello from a hot-loaded module');

  changed = toolsChanged;
  unlinkSync(join(served, 'hello.wasm'));
  await changed;
  ({ tools } = await client.listTools({}, { timeout }));
  assert.ok(!tools.some((t) => t.name === 'hello'), 'hello still listed after its module was deleted');
}));
