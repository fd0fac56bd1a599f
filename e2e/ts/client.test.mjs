// End-to-end tests of `wasmcp serve` with the official TypeScript MCP SDK
// client over stdio, as a Node-based MCP host would use it.
//
// make test runs them with `node --test`; harness.mjs says what they need.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

import { bin, callTool, diagnoseWith, makeWork, textOf, timeout, trackToolsChanged } from './harness.mjs';


let work; // temporary directory of this run
let served; // the directory the server serves: a copy of the bundled modules
let cacheDir;
let client;
let stderr = '';
let toolsChanged; // toolsChanged.next resolves on the next notifications/tools/list_changed

before(async () => {
  ({ work, served } = makeWork('wasmcp-e2e-ts-'));
  cacheDir = join(work, 'cache');

  const transport = new StdioClientTransport({
    command: bin,
    args: ['serve', '--dir', served, '--cache-dir', cacheDir, '--wait-loaded'],
    stderr: 'pipe',
  });
  transport.stderr.on('data', (d) => { stderr += d; });
  client = new Client({ name: 'wasmcp-e2e-ts', version: '1.0.0' });
  toolsChanged = trackToolsChanged(client);
  await client.connect(transport, { timeout });
});

after(async () => {
  await client?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const call = (name, args) => callTool(client, name, args);
const diagnose = diagnoseWith(() => stderr);

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
  assert.equal(res.structuredContent, undefined);
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
  const changed = toolsChanged.next;
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

// Without --wait-loaded, as a host starts the server: initialize is answered
// while the modules still compile (the cache is empty), and the tools
// arrive by notifications/tools/list_changed.
test('tools arrive by list_changed after a cold start', { timeout }, diagnose(async () => {
  const cold = join(work, 'cold-cache');
  const t = new StdioClientTransport({ command: bin, args: ['serve', '--dir', served, '--cache-dir', cold], stderr: 'pipe' });
  const c = new Client({ name: 'wasmcp-e2e-ts-cold', version: '1.0.0' });
  const changed = trackToolsChanged(c);
  await c.connect(t, { timeout });
  try {
    const want = (await client.listTools({}, { timeout })).tools.map((x) => x.name).sort();
    for (let i = 0; ; i++) {
      const got = (await c.listTools({}, { timeout })).tools.map((x) => x.name).sort();
      if (JSON.stringify(got) === JSON.stringify(want)) break;
      assert.ok(i < 100, `tools never all arrived: ${got}`);
      await changed.next;
    }
  } finally {
    await c.close();
  }
}));
