// End-to-end tests of `wasmcp serve` with the official TypeScript MCP SDK
// client over stdio, as a Node-based MCP host would use it.
//
// make test runs them with `node --test` and these variables:
//   WASMCP_BIN      the wasmcp binary
//   WASMCP_PLUGINS  the directory of bundled modules (make plugins)
// The hot reload test assembles ../testdata/hello.wat with wat2wasm.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const bin = process.env.WASMCP_BIN;
const plugins = process.env.WASMCP_PLUGINS;
if (!bin || !plugins) {
  throw new Error('set WASMCP_BIN and WASMCP_PLUGINS (make test does)');
}
const testdata = join(dirname(fileURLToPath(import.meta.url)), '..', 'testdata');

// Generous bounds against hangs only; nothing asserts on time.
const timeout = 120_000;

let work; // temporary directory of this run
let served; // the directory the server serves: a copy of the bundled modules
let cacheDir;
let client;
let stderr = '';
let toolsChanged; // resolves on the next notifications/tools/list_changed

function expectToolsChanged() {
  let resolve;
  toolsChanged = new Promise((r) => { resolve = r; });
  return resolve;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'wasmcp-e2e-ts-'));
  served = join(work, 'served');
  cacheDir = join(work, 'cache');
  mkdirSync(served);
  for (const f of readdirSync(plugins).filter((f) => f.endsWith('.wasm'))) {
    copyFileSync(join(plugins, f), join(served, f));
  }
  execFileSync('wat2wasm', [join(testdata, 'hello.wat'), '-o', join(work, 'hello.wasm')]);

  const transport = new StdioClientTransport({
    command: bin,
    args: ['serve', '--dir', served, '--cache-dir', cacheDir],
    stderr: 'pipe',
  });
  transport.stderr.on('data', (d) => { stderr += d; });
  client = new Client({ name: 'wasmcp-e2e-ts', version: '1.0.0' });
  let notify = expectToolsChanged();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notify();
    notify = expectToolsChanged();
  });
  await client.connect(transport, { timeout });
});

after(async () => {
  await client?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// textOf joins the text blocks of a result.
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

test('initialize advertises tools with listChanged', { timeout }, () => {
  const caps = client.getServerCapabilities();
  assert.equal(caps.tools?.listChanged, true);
  assert.equal(client.getServerVersion().name, 'wasmcp');
});

test('tools/list has every bundled tool with its schema', { timeout }, diagnose(async () => {
  const { tools } = await client.listTools({}, { timeout });
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ['echo', 'get-sum', 'get-structured-content', 'get-error', 'jq', 'regex_match', 'text_stats']) {
    assert.ok(byName.has(name), `${name} missing from ${[...byName.keys()]}`);
    assert.equal(byName.get(name).inputSchema.type, 'object');
  }
  assert.ok(byName.get('get-structured-content').outputSchema, 'structured tool has no outputSchema');
}));

test('echo', { timeout }, diagnose(async () => {
  const res = await call('echo', { message: 'hello from node' });
  assert.notEqual(res.isError, true, textOf(res));
  assert.equal(textOf(res), 'Echo: hello from node');
}));

test('structured content conforms to the output schema', { timeout }, diagnose(async () => {
  // callTool validates structuredContent against the listed outputSchema
  // and throws if it does not conform.
  await client.listTools({}, { timeout });
  const res = await call('get-structured-content', { location: 'New York' });
  assert.notEqual(res.isError, true, textOf(res));
  assert.deepEqual(res.structuredContent, { temperature: 22.5, conditions: 'Partly cloudy', humidity: 65 });
  // With no content of its own, the result mirrors it as text.
  assert.deepEqual(JSON.parse(textOf(res)), res.structuredContent);
}));

test('a plugin tool with an output schema: jq', { timeout }, diagnose(async () => {
  await client.listTools({}, { timeout });
  const res = await call('jq', { filter: '.a + 1', input: { a: 41 } });
  assert.notEqual(res.isError, true, textOf(res));
  assert.deepEqual(res.structuredContent, { results: [42], truncated: false });
}));

test('a failing tool is an isError result', { timeout }, diagnose(async () => {
  const res = await call('get-error', { message: 'on purpose' });
  assert.equal(res.isError, true);
  assert.equal(textOf(res), 'get-error: on purpose');
}));

test('a wrong-typed argument is a tool error the model can read', { timeout }, diagnose(async () => {
  const res = await call('get-sum', { a: 'one', b: 2 });
  assert.equal(res.isError, true);
  assert.match(textOf(res), /at \/a: got string, want number/);
  assert.deepEqual(res.structuredContent, {});
}));

test('an unknown tool is JSON-RPC error -32602', { timeout }, diagnose(async () => {
  await assert.rejects(call('no-such-tool', {}), (e) => {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    assert.equal(e.code, ErrorCode.InvalidParams);
    return true;
  });
}));

test('a module dropped into the directory arrives with list_changed', { timeout }, diagnose(async () => {
  const before = await client.listTools({}, { timeout });
  assert.ok(!before.tools.some((t) => t.name === 'hello'));
  const changed = toolsChanged;
  // Write under a name the server ignores, then rename: the server never
  // sees half a module.
  copyFileSync(join(work, 'hello.wasm'), join(served, '.hello.partial'));
  renameSync(join(served, '.hello.partial'), join(served, 'hello.wasm'));
  await changed;
  const { tools } = await client.listTools({}, { timeout });
  assert.ok(tools.some((t) => t.name === 'hello'), 'hello not listed after list_changed');
  const res = await call('hello', {});
  assert.equal(textOf(res), 'hello from a hot-loaded module');
}));
