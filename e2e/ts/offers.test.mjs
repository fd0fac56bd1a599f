// Resources, resource templates, prompts, completion and an MCP Apps view
// reach the official TypeScript SDK client (1.x, which validates every
// result with its schemas) and the MCP Inspector CLI, over stdio and
// Streamable HTTP: ../testdata/offers.wat (its header says what it offers)
// and hyper-mcp's published v2 plugin rstime, served unchanged.
//
// make test runs them with `node --test`; harness.mjs says what they need.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  ErrorCode, McpError, PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { bin, diagnoseWith, inspect, skipWithoutInspector, startClient, timeout, trackNotifications, workDir } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const work = workDir('wasmcp-e2e-ts-offers-');
after(() => rmSync(work, { recursive: true, force: true }));
const cacheDir = join(work, 'cache');

// offers.wasm, assembled once, and rstime.wasm wait here.
const modules = join(work, 'modules');
mkdirSync(modules);
execFileSync('wat2wasm', [join(here, '..', 'testdata', 'offers.wat'), '-o', join(modules, 'offers.wasm')]);
execFileSync('wat2wasm', [join(here, '..', 'testdata', 'hello.wat'), '-o', join(modules, 'hello.wasm')]);
copyFileSync(join(here, '..', '..', 'host', 'testdata', 'thirdparty', 'rstime.wasm'), join(modules, 'rstime.wasm'));

// The policy grants offers the origin it requests, so that its view keeps
// that one of the two CSP origins it asks for.
const policy = join(work, 'policy.json');
writeFileSync(policy, JSON.stringify({ plugins: { offers: { net: ['https://api.example.com'] } } }));

const many = 1010;
const offersResources = 5 + many;
const offersPrompts = 3 + many;

// served returns a new directory holding copies of the named modules.
function served(name, ...mods) {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const m of mods) copyFileSync(join(modules, `${m}.wasm`), join(dir, `${m}.wasm`));
  return dir;
}

// all follows a list's cursors and returns its items and its page count.
async function all(list, member) {
  const items = [];
  let cursor;
  let pages = 0;
  do {
    const page = await list(cursor ? { cursor } : {}, { timeout });
    items.push(...page[member]);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

// rejects checks that promise fails with McpError code whose message
// matches text.
async function rejects(promise, code, text) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, text);
    return true;
  });
}

for (const transport of ['stdio', 'http']) {
  test(`resources, prompts and completion reach the TypeScript client (${transport})`, { timeout: 2 * timeout }, async () => {
    const dir = served(`all-${transport}`, 'offers', 'rstime');
    const { client, stderr, close } = await startClient({ transport, dir, cacheDir, args: ['--config', policy] });
    const diagnose = diagnoseWith(stderr);
    try {
      await diagnose(async () => {
        const caps = client.getServerCapabilities();
        assert.equal(caps.resources?.listChanged, true, JSON.stringify(caps));
        assert.equal(caps.prompts?.listChanged, true, JSON.stringify(caps));
        assert.ok(caps.completions, JSON.stringify(caps));

        const first = await client.listResources({}, { timeout });
        assert.equal(first.resources.length, 1000);
        assert.ok(first.nextCursor, 'no cursor after a full page');
        const resources = await all((p, o) => client.listResources(p, o), 'resources');
        assert.equal(resources.items.length, offersResources);
        assert.equal(new Set(resources.items.map((r) => r.uri)).size, offersResources, 'a resource listed twice');
        const view = resources.items.find((r) => r.uri === 'ui://offers/view');
        assert.equal(view.mimeType, 'text/html;profile=mcp-app');
        assert.deepEqual(view._meta.ui.csp.connectDomains, ['https://api.example.com']);

        const templates = await all((p, o) => client.listResourceTemplates(p, o), 'resourceTemplates');
        const uriTemplates = templates.items.map((t) => t.uriTemplate);
        assert.ok(uriTemplates.includes('offers://items/{id}'), uriTemplates.join(' '));
        assert.ok(uriTemplates.some((u) => u.startsWith('https://www.timezoneconverter.com/')), uriTemplates.join(' '));

        const prompts = await all((p, o) => client.listPrompts(p, o), 'prompts');
        assert.equal(prompts.items.length, offersPrompts + 1);
        assert.equal(prompts.pages, 2);
        const greet = prompts.items.find((p) => p.name === 'greet');
        assert.deepEqual(greet.arguments, [{ name: 'name', required: true }, { name: 'style' }]);

        // Reads: text, binary, an empty text (the SDK's schema must take
        // it), a template's match and the app view.
        const read = async (uri) => (await client.readResource({ uri }, { timeout })).contents;
        assert.deepEqual(await read('offers://text'), [{ uri: 'offers://text', mimeType: 'text/plain', text: 'plain text' }]);
        assert.deepEqual(await read('offers://blob'), [{ uri: 'offers://blob', mimeType: 'application/octet-stream', blob: 'AAECAw==' }]);
        assert.deepEqual(await read('offers://empty'), [{ uri: 'offers://empty', mimeType: 'text/plain', text: '' }]);
        assert.deepEqual(await read('offers://items/42'), [{ uri: 'offers://items/42', mimeType: 'text/plain', text: 'item 42' }]);
        const [page] = await read('ui://offers/view');
        assert.equal(page.mimeType, 'text/html;profile=mcp-app');
        assert.match(page.text, /<p>view<\/p>/);
        assert.deepEqual(page._meta.ui.csp.connectDomains, ['https://api.example.com']);

        await rejects(read('nope://x'), -32002, /resource not found: nope:\/\/x/);
        await rejects(read('offers://items/missing'), -32002, /plugin offers: no such item/);
        await rejects(read('offers://items/../text'), ErrorCode.InvalidParams, /path segment/);
        await rejects(read('offers://items/trap'), ErrorCode.InternalError, /trap/);
        assert.equal((await read('offers://items/7'))[0].text, 'item 7', 'the plugin stopped serving after a trap');

        // Prompts: the guest gets the arguments, the host checks them first.
        const got = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, { timeout });
        assert.equal(got.description, 'A greeting');
        assert.deepEqual(got.messages[0].content._meta.arguments, { name: 'Ada' });
        assert.equal(got.messages[1].content.type, 'resource');
        assert.equal(got.messages[1].content.resource.text, 'plain text');
        await rejects(client.getPrompt({ name: 'greet', arguments: {} }, { timeout }), ErrorCode.InvalidParams, /argument "name" is required/);
        await rejects(client.getPrompt({ name: 'greet', arguments: { name: 'x', mood: 'y' } }, { timeout }), ErrorCode.InvalidParams, /no argument "mood"/);
        await rejects(client.getPrompt({ name: 'refuse' }, { timeout }), ErrorCode.InvalidParams, /the guest refuses/);
        await rejects(client.getPrompt({ name: 'nope' }, { timeout }), ErrorCode.InvalidParams, /unknown prompt/);
        const time = await client.getPrompt({ name: 'get_time_with_timezone', arguments: { timezone: 'Europe/Paris' } }, { timeout });
        assert.match(JSON.stringify(time.messages), /Europe\/Paris/);

        const complete = async (ref, name, value = '') => (await client.complete({ ref, argument: { name, value } }, { timeout })).completion.values;
        assert.deepEqual(await complete({ type: 'ref/prompt', name: 'greet' }, 'name'), ['Ada', 'Alan', 'Grace']);
        assert.deepEqual(await complete({ type: 'ref/resource', uri: 'offers://items/{id}' }, 'id'), ['Ada', 'Alan', 'Grace']);
        assert.deepEqual(await complete({ type: 'ref/prompt', name: 'greet' }, 'mood'), []);
        assert.ok((await complete({ type: 'ref/prompt', name: 'get_time_with_timezone' }, 'timezone', 'Europe/Pa')).includes('Europe/Paris'));

        const { tools } = await client.listTools({}, { timeout });
        assert.equal(tools.find((t) => t.name === 'show')._meta.ui.resourceUri, 'ui://offers/view');
      })();
    } finally {
      await close();
    }
  });

  test(`a module dropped in and taken away: prompts and resources list_changed (${transport})`, { timeout: 2 * timeout }, async () => {
    const dir = served(`reload-${transport}`, 'hello');
    const { client, stderr, close } = await startClient({ transport, dir, cacheDir });
    const diagnose = diagnoseWith(stderr);
    try {
      await diagnose(async () => {
        const prompts = trackNotifications(client, PromptListChangedNotificationSchema);
        const resources = trackNotifications(client, ResourceListChangedNotificationSchema);
        const count = async () => [
          (await all((p, o) => client.listPrompts(p, o), 'prompts')).items.length,
          (await all((p, o) => client.listResources(p, o), 'resources')).items.length,
        ];
        assert.deepEqual(await count(), [0, 0]);
        let changed = [prompts.next, resources.next];
        copyFileSync(join(modules, 'offers.wasm'), join(dir, '.offers.partial'));
        renameSync(join(dir, '.offers.partial'), join(dir, 'offers.wasm'));
        await Promise.all(changed);
        assert.deepEqual(await count(), [offersPrompts, offersResources]);

        changed = [prompts.next, resources.next];
        rmSync(join(dir, 'offers.wasm'));
        await Promise.all(changed);
        assert.deepEqual(await count(), [0, 0]);
      })();
    } finally {
      await close();
    }
  });
}

// The MCP Inspector CLI. Its --config and --log-level are its own, so
// serve's flags are given with Go's single dash.
for (const transport of ['stdio', 'http']) {
  test(`the MCP Inspector CLI lists, reads and gets (${transport})`, { timeout: 4 * timeout }, async (t) => {
    if (skipWithoutInspector(t)) return;
    const dir = served(`inspector-${transport}`, 'offers', 'rstime');
    let target = [bin, 'serve', '-dir', dir, '-cache-dir', cacheDir, '-config', policy, '-wait-loaded'];
    let close = async () => {};
    if (transport === 'http') {
      const s = await startClient({ transport, dir, cacheDir, args: ['--config', policy] });
      target = [s.url, '--transport', 'http'];
      close = s.close;
    }
    try {
      const ok = async (...args) => {
        const r = await inspect(work, [...target, ...args]);
        assert.equal(r.code, 0, `${args.join(' ')}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
        return JSON.parse(r.stdout);
      };
      const fails = async (text, ...args) => {
        const r = await inspect(work, [...target, ...args]);
        assert.notEqual(r.code, 0, `${args.join(' ')} succeeded: ${r.stdout}`);
        assert.match(r.stdout + r.stderr, text);
      };
      const listed = await ok('--method', 'resources/list');
      assert.ok(listed.resources.some((r) => r.uri === 'offers://blob'), JSON.stringify(listed).slice(0, 500));
      const templates = await ok('--method', 'resources/templates/list');
      assert.ok(templates.resourceTemplates.some((r) => r.uriTemplate === 'offers://items/{id}'));
      const prompts = await ok('--method', 'prompts/list');
      assert.ok(prompts.prompts.some((p) => p.name === 'greet'));
      assert.deepEqual((await ok('--method', 'resources/read', '--uri', 'offers://empty')).contents,
        [{ uri: 'offers://empty', mimeType: 'text/plain', text: '' }]);
      assert.deepEqual((await ok('--method', 'resources/read', '--uri', 'offers://blob')).contents,
        [{ uri: 'offers://blob', mimeType: 'application/octet-stream', blob: 'AAECAw==' }]);
      assert.equal((await ok('--method', 'resources/read', '--uri', 'offers://items/9')).contents[0].text, 'item 9');
      const got = await ok('--method', 'prompts/get', '--prompt-name', 'greet', '--prompt-args', 'name=Ada', 'style=warm');
      assert.deepEqual(got.messages[0].content._meta.arguments, { name: 'Ada', style: 'warm' });
      // The Inspector's probe of a tool's app: the view, its MIME type and
      // its CSP as the policy caps it.
      const app = await ok('--method', 'tools/call', '--tool-name', 'show', '--app-info');
      assert.equal(app.resourceUri, 'ui://offers/view');
      assert.equal(app.resourceMimeType, 'text/html;profile=mcp-app');
      assert.deepEqual(app.csp.connectDomains, ['https://api.example.com']);
      await fails(/resource not found: nope:\/\/x/, '--method', 'resources/read', '--uri', 'nope://x');
      await fails(/argument \\?"name\\?" is required/, '--method', 'prompts/get', '--prompt-name', 'greet');
    } finally {
      await close();
    }
  });
}
