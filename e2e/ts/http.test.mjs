// End-to-end tests of `wasmcp serve --http` with the official TypeScript MCP
// SDK client over Streamable HTTP, as a remote MCP host would use it.
//
// make test runs them with `node --test`; harness.mjs says what they need.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, callTool, diagnoseWith, makeWork, textOf, timeout, trackToolsChanged } from './harness.mjs';

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
let toolsChanged; // toolsChanged.next resolves on the next notifications/tools/list_changed

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
  ({ work, served } = makeWork('wasmcp-e2e-ts-http-'));

  server = spawn(bin, [
    'serve', '--dir', served, '--cache-dir', join(work, 'cache'), '--wait-loaded',
    '--http', '127.0.0.1:0', '--token-env', 'WASMCP_TS_TOKEN',
  ], { env: { ...process.env, WASMCP_TS_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
  exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(code ?? signal)));
  url = await serving();

  ({ t: transport, c: client } = connect({ Authorization: `Bearer ${token}` }));
  toolsChanged = trackToolsChanged(client);
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

const call = (name, args) => callTool(client, name, args);
const diagnose = diagnoseWith(() => stderr);

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

  let changed = toolsChanged.next;
  copyFileSync(join(work, 'hello.wasm'), join(served, '.hello.partial'));
  renameSync(join(served, '.hello.partial'), join(served, 'hello.wasm'));
  await changed;
  let { tools } = await client.listTools({}, { timeout });
  assert.ok(tools.some((t) => t.name === 'hello'), 'hello not listed after list_changed');
  assert.equal(textOf(await call('hello', {})), 'hello from a hot-loaded module');

  changed = toolsChanged.next;
  unlinkSync(join(served, 'hello.wasm'));
  await changed;
  ({ tools } = await client.listTools({}, { timeout }));
  assert.ok(!tools.some((t) => t.name === 'hello'), 'hello still listed after its module was deleted');
}));
