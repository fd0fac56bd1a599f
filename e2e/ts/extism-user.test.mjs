// The official TypeScript SDK client against the plugins of examples/extism
// that call hyper-mcp's own host functions (extism:host/user):
// extism-user-as (@extism/as-pdk) and extism-user-go (Extism's Go PDK), with
// the same tools. The contract is e2e/extism_user_test.go's, with a client
// of 2025-11-25: progress reaches onprogress, logging messages arrive,
// sampling, elicitation and roots are answered by the client in the middle
// of the call, a URL elicitation's completion reaches it, the policy's
// secret is read and no other, get_access_token fails the call saying why,
// and a list-changed notification has the client told of the tool the
// plugin's variable added. make plugins builds the plugins into
// WASMCP_EXTISM; without them the tests skip, except under CI=true.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import {
  CreateMessageRequestSchema, ElicitationCompleteNotificationSchema, ElicitRequestSchema, ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { bin, diagnoseWith, plugins, startClient, textOf, timeout, trackToolsChanged, workDir } from './harness.mjs';

const extismDir = process.env.WASMCP_EXTISM || join(dirname(plugins), 'extism');
const names = ['extism-user-as', 'extism-user-go'];
const secret = 'correct horse battery staple';

// unsupported says why the binary cannot serve the plugins, or ''.
function unsupported() {
  for (const name of names) {
    const p = join(extismDir, `${name}.wasm`);
    if (!existsSync(p)) return `${p} is not built (make plugins builds it)`;
    try {
      execFileSync(bin, ['inspect', p], { stdio: 'pipe' });
    } catch (e) {
      return `wasmcp inspect ${p}: ${e.message}`;
    }
  }
  return '';
}
const why = unsupported();
const skip = why && process.env.CI !== 'true' ? why : false;

let work;
before(() => {
  if (skip) return;
  if (why) assert.fail(why);
  work = workDir('wasmcp-e2e-extism-user-');
});
after(() => { if (work) rmSync(work, { recursive: true, force: true }); });

for (const name of names) {
  test(`${name}: hyper-mcp's host functions with the TypeScript client`, { timeout, skip }, async (t) => {
    const served = join(work, name);
    mkdirSync(served);
    copyFileSync(join(extismDir, `${name}.wasm`), join(served, `${name}.wasm`));
    const config = join(work, `${name}.json`);
    writeFileSync(config, JSON.stringify({ plugins: { [name]: { secrets: { 'e2e/ada': '${WASMCP_E2E_SECRET}' } } } }));
    const server = await startClient({
      transport: 'stdio', dir: served, cacheDir: join(work, 'cache'), args: ['--config', config],
      capabilities: { sampling: {}, elicitation: { form: {} }, roots: {} },
      env: { ...process.env, WASMCP_E2E_SECRET: secret },
    });
    const { client } = server;
    const asked = [];
    const logs = [];
    const completed = [];
    client.setRequestHandler(CreateMessageRequestSchema, (req) => {
      asked.push(`sampling ${req.params.messages[0].content.text}`);
      return { role: 'assistant', model: 'ts-model', content: { type: 'text', text: 'Four.' } };
    });
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(`elicitation ${req.params.mode ?? ''} ${req.params.message}`);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///ts/work', name: 'work' }] }));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params); });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => { completed.push(n.params.elicitationId); });
    const changed = trackToolsChanged(client);
    const diagnose = diagnoseWith(server.stderr);
    const call = (tool, args = {}, options = {}) => client.callTool({ name: tool, arguments: args }, undefined, { timeout, ...options });
    const wantText = async (res, want) => {
      res = await res;
      assert.notEqual(res.isError, true, textOf(res));
      assert.equal(textOf(res), want);
    };
    // waitFor polls cond, for notifications that come apart from results.
    const waitFor = async (cond, what) => {
      for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
      assert.ok(cond(), what);
    };

    try {
      await t.test('progress reaches onprogress', diagnose(async () => {
        // The SDK drops a progress notification that it reads in the same
        // chunk as the call's response (typescript-sdk #2580), which a
        // plugin that ends right after its last report makes likely: here
        // the plugin asks the client's model after each step, as a real
        // one would work, so every report is read before the response.
        const progress = [];
        await wantText(call('progress', { prompt: 'next?' }, { onprogress: (p) => progress.push(p) }), 'reported 3 steps');
        assert.deepEqual(progress, [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i} of 3` })));
        assert.deepEqual(asked.splice(0), ['sampling next?', 'sampling next?', 'sampling next?']);
        await wantText(call('progress'), 'no progress token');
      }));

      await t.test('logging messages', diagnose(async () => {
        await client.setLoggingLevel('debug', { timeout });
        await wantText(call('log', { level: 'warning', message: 'careful' }), 'sent');
        const data = `${name.replace(/^extism-/, '')}: careful`;
        await waitFor(() => logs.some((l) => l.data === data), `no logging message ${data} in ${JSON.stringify(logs)}`);
        const l = logs.find((l) => l.data === data);
        assert.equal(l.level, 'warning');
        assert.equal(l.logger, name);
      }));

      await t.test('sampling, elicitation and roots answered by the client', diagnose(async () => {
        await wantText(call('sample', { prompt: '2+2?' }), 'ts-model said: Four.');
        await wantText(call('elicit'), 'accept Ada');
        assert.deepEqual(asked, ['sampling 2+2?', 'elicitation form What is your name?']);
        await wantText(call('roots'), 'file:///ts/work');
      }));

      await t.test('a URL elicitation completes', diagnose(async () => {
        await wantText(call('url_done', { id: 'el-9' }), 'sent');
        await waitFor(() => completed.includes('el-9'), `completions ${completed}`);
        await wantText(call('resource_updated', { uri: 'file:///ts/r' }), 'sent');
      }));

      await t.test('keyring secrets from the policy only', diagnose(async () => {
        await wantText(call('secret', { service: 'e2e', user: 'ada' }), secret);
        await wantText(call('secret', { service: 'e2e', user: 'bob' }), 'no secret');
      }));

      await t.test('get_access_token fails the call', diagnose(async () => {
        const res = await call('token');
        assert.equal(res.isError, true, JSON.stringify(res));
        assert.match(textOf(res), /extism:host\/user\.get_access_token: wasmcp gets no OAuth tokens/);
      }));

      await t.test('list_changed after notify_tool_list_changed', diagnose(async () => {
        const next = changed.next;
        await wantText(call('grow', { list: 'tools' }), '1 extra tools');
        await next;
        const { tools } = await client.listTools({}, { timeout });
        assert.ok(tools.some((tool) => tool.name === 'extra_1'), tools.map((tool) => tool.name).join(' '));
        await wantText(call('extra_1'), 'extra_1 was added by grow');
      }));
    } finally {
      await server.close();
    }
  });
}
