// The official TypeScript SDK client against the Extism plugins of
// examples/extism (hyper-mcp v1 extism-as, tools as_*; v2 extism-go, tools
// go_*), served beside a wasmcp plugin: the same contract as
// e2e/extism_test.go, which lists it. make plugins builds them into
// WASMCP_EXTISM. While the binary refuses Extism modules (`wasmcp inspect`
// fails on one) the tests skip, except under CI=true, where they fail.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { basename, dirname, join } from 'node:path';

import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { bin, callTool, diagnoseWith, plugins, startClient, textOf, timeout, trackToolsChanged, workDir } from './harness.mjs';

const extismDir = process.env.WASMCP_EXTISM || join(dirname(plugins), 'extism');
const asPlugin = join(extismDir, 'extism-as.wasm');
const goPlugin = join(extismDir, 'extism-go.wasm');

// unsupported says why the binary cannot serve the plugins, or ''.
function unsupported() {
  for (const p of [asPlugin, goPlugin]) {
    if (!existsSync(p)) return `${p} is not built (make plugins builds it)`;
    try {
      execFileSync(bin, ['inspect', p], { stdio: 'pipe' });
    } catch (e) {
      const why = /loadable\s+(.*)/.exec(String(e.stdout))?.[1] ?? e.message;
      return `this wasmcp does not load Extism modules (issue 25): wasmcp inspect ${p}: ${why}`;
    }
  }
  return '';
}
const why = unsupported();
const skip = why && process.env.CI !== 'true' ? why : false;

// A loopback HTTP server that counts its connections.
async function origin(handler) {
  const server = createServer(handler);
  let conns = 0;
  server.on('connection', () => { conns++; });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, conns: () => conns, close: () => new Promise((r) => server.close(r)) };
}

// policy writes a policy file giving each plugin named the greeting "hi",
// the net origins given, and extra settings.
function policy(path, names, origins, extra = {}) {
  const entry = { config: { greeting: 'hi' }, net: origins, privateNetwork: true, ...extra };
  writeFileSync(path, JSON.stringify({ plugins: Object.fromEntries(names.map((n) => [n, entry])) }));
  return path;
}

let work;
let allowed;
let refused;
let server; // { client, stderr, close }
const logs = [];
const diagnose = diagnoseWith(() => server?.stderr() ?? '');
const call = (name, args) => callTool(server.client, name, args);

before(async () => {
  if (skip) return;
  if (why) assert.fail(why);
  work = workDir('wasmcp-e2e-extism-');
  allowed = await origin((req, res) => res.end(`hello from ${req.url}`));
  refused = await origin((req, res) => res.end('hello'));
  const served = join(work, 'served');
  mkdirSync(served);
  for (const p of [asPlugin, goPlugin, join(plugins, 'everything.wasm')]) copyFileSync(p, join(served, basename(p)));
  const config = policy(join(work, 'policy.json'), ['extism-as', 'extism-go'], [allowed.url], { timeout: '2s' });
  server = await startClient({ transport: 'stdio', dir: served, cacheDir: join(work, 'cache'), args: ['--config', config] });
  server.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
  await server.client.setLoggingLevel('debug', { timeout });
});

after(async () => {
  await server?.close();
  await allowed?.close();
  await refused?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function wantText(name, args, want) {
  const res = await call(name, args);
  assert.notEqual(res.isError, true, `${name}: ${textOf(res)}`);
  assert.equal(textOf(res), want, name);
}

test('the Extism tools are listed beside the wasmcp ones', { timeout, skip }, diagnose(async () => {
  const { tools } = await server.client.listTools({}, { timeout });
  const names = new Set(tools.map((t) => t.name));
  for (const n of ['get-sum', 'as_echo', 'as_greeting', 'as_counter', 'as_fail', 'as_logs', 'as_fetch', 'as_spin',
    'go_echo', 'go_greeting', 'go_counter', 'go_fail', 'go_logs', 'go_fetch']) {
    assert.ok(names.has(n), `${n} missing from ${[...names]}`);
  }
  await wantText('get-sum', { a: 7, b: 5 }, 'The sum of 7 and 5 is 12.');
}));

for (const [plugin, prefix] of [['extism-as', 'as_'], ['extism-go', 'go_']]) {
  test(`${plugin}: echo, config, state, errors, logs, network`, { timeout, skip }, diagnose(async () => {
    await wantText(`${prefix}echo`, { text: 'héllo "wörld"\n' }, 'héllo "wörld"\n');
    await wantText(`${prefix}greeting`, {}, 'hi');
    for (const n of ['1', '2', '3']) await wantText(`${prefix}counter`, {}, n);

    const failed = await call(`${prefix}fail`, { message: 'it broke on purpose' });
    assert.equal(failed.isError, true, JSON.stringify(failed));
    assert.match(textOf(failed), /it broke on purpose/);

    await wantText(`${prefix}logs`, {}, 'logged at trace, debug, info, warn and error');
    const want = { debug: 'debug', info: 'info', warn: 'warning', error: 'error' };
    for (let i = 0; i < 100 && Object.keys(want).some((l) => !logs.some((p) => p.data === `${prefix}logs ${l}`)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const [l, level] of Object.entries(want)) {
      const p = logs.find((p) => p.data === `${prefix}logs ${l}`);
      assert.ok(p, `no notifications/message "${prefix}logs ${l}" in ${JSON.stringify(logs)}`);
      assert.equal(p.level, level);
      assert.equal(p.logger, plugin);
    }

    await wantText(`${prefix}fetch`, { url: `${allowed.url}/page` }, '200\nhello from /page');
    const denied = await call(`${prefix}fetch`, { url: `${refused.url}/` });
    assert.equal(denied.isError, true, JSON.stringify(denied));
    assert.equal(refused.conns(), 0, 'the refused origin was connected to');
  }));
}

test('50 concurrent calls are answered correctly', { timeout, skip }, diagnose(async () => {
  await Promise.all(Array.from({ length: 50 }, (_, i) => {
    const tool = i % 2 ? 'go_echo' : 'as_echo';
    return wantText(tool, { text: `call ${i} of ${tool}` }, `call ${i} of ${tool}`);
  }));
}));

test('a looping call ends at its deadline', { timeout, skip }, diagnose(async () => {
  const res = await call('as_spin', {});
  assert.equal(res.isError, true, JSON.stringify(res));
  await wantText('as_echo', { text: 'still serving' }, 'still serving');
}));

test('a replaced Extism module: list_changed, and its variables start over', { timeout, skip }, async () => {
  const dir = join(work, 'reload');
  mkdirSync(dir);
  const target = join(dir, 'extism.wasm');
  const install = (bytes) => {
    writeFileSync(join(dir, '.extism.partial'), bytes);
    renameSync(join(dir, '.extism.partial'), target);
  };
  const as = readFileSync(asPlugin);
  copyFileSync(join(plugins, 'everything.wasm'), join(dir, 'everything.wasm'));
  install(as);
  const config = policy(join(work, 'reload-policy.json'), ['extism'], []);
  const s = await startClient({ transport: 'stdio', dir, cacheDir: join(work, 'cache'), args: ['--config', config] });
  try {
    const counter = async (tool, want) => {
      const res = await callTool(s.client, tool, {});
      assert.notEqual(res.isError, true, textOf(res));
      assert.equal(textOf(res), want, tool);
    };
    const changed = trackToolsChanged(s.client);
    await counter('as_counter', '1');
    await counter('as_counter', '2');

    let next = changed.next;
    install(readFileSync(goPlugin));
    await next;
    let names = new Set((await s.client.listTools({}, { timeout })).tools.map((t) => t.name));
    assert.ok(names.has('go_counter') && !names.has('as_counter'), [...names].join(' '));
    await counter('go_counter', '1');

    // The AssemblyScript plugin again, under a new digest (a custom
    // section appended): its counter starts over.
    next = changed.next;
    install(Buffer.concat([as, Buffer.from([0, 7, 6]), Buffer.from('second')]));
    await next;
    names = new Set((await s.client.listTools({}, { timeout })).tools.map((t) => t.name));
    assert.ok(names.has('as_counter'), [...names].join(' '));
    await counter('as_counter', '1');
  } catch (e) {
    e.message += `\nserver log:\n${s.stderr()}`;
    throw e;
  } finally {
    await s.close();
  }
});
