// Three `wasmcp serve --http` replicas behind haproxy with the configuration
// we ship (deploy/haproxy/haproxy.cfg), driven by the TypeScript SDK client,
// a 2025-era client: each session stays on the replica that opened it, and
// when that replica is killed the session ends with an error and a new one
// works on the others. e2e/replicas_test.go covers the rest with go-sdk.
//
// haproxy comes from make deps; without it the test is skipped, except in CI.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, callTool, freePort, plugins, textOf, timeout, workDir } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function haveHAProxy() {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// start runs a child process and returns it with its output so far and a
// promise of its exit.
function start(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = { child, log: '' };
  child.stdout.on('data', (d) => { proc.log += d; });
  child.stderr.on('data', (d) => { proc.log += d; });
  proc.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  return proc;
}

// until polls check every 20 ms until it returns a value, within timeout.
async function until(what, check) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function status(url) {
  try {
    return (await fetch(url)).status;
  } catch {
    return 0;
  }
}

async function connect(endpoint) {
  const client = new Client({ name: 'wasmcp-e2e-ts-replicas', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  await client.connect(transport, { timeout });
  return { client, transport };
}

async function wantSum(client, a, b) {
  const res = await callTool(client, 'get-sum', { a, b });
  assert.equal(textOf(res), `The sum of ${a} and ${b} is ${a + b}.`);
}

test('replicas behind haproxy keep TypeScript sessions and survive a killed replica', { timeout: 5 * timeout }, async (t) => {
  if (!haveHAProxy()) {
    const msg = 'haproxy not found: install it (Debian: apt-get install haproxy), or run make deps';
    if (process.env.CI) throw new Error(msg);
    t.skip(msg);
    return;
  }
  const work = workDir('wasmcp-ts-replicas-');
  const served = join(work, 'served');
  mkdirSync(served);
  copyFileSync(join(plugins, 'everything.wasm'), join(served, 'everything.wasm'));
  const procs = [];
  const clients = [];
  try {
    const replicas = [];
    for (let i = 0; i < 3; i++) {
      const r = start(bin, ['serve', '--dir', served, '--cache-dir', join(work, 'cache'), '--http', '127.0.0.1:0']);
      procs.push(r);
      r.base = (await until('a replica to serve', () => /serving over HTTP.*?url=(http:\/\/\S+)\/mcp/.exec(r.log)))[1];
      replicas.push(r);
    }
    for (const r of replicas) {
      await until('a replica to be ready', async () => (await status(r.base + '/readyz')) === 200);
    }

    const port = await freePort();
    const servers = replicas.map((r, i) => `    server wasmcp${i + 1} ${r.base.replace('http://', '')} check\n`).join('');
    const cfg = readFileSync(join(root, 'deploy', 'haproxy', 'haproxy.cfg'), 'utf8')
      .replace(/^(\s*)bind .*$/m, `$1bind 127.0.0.1:${port}`)
      .replace(/^\s*server .*\n/gm, '')
      .trimEnd() + '\n' + servers;
    const cfgPath = join(work, 'haproxy.cfg');
    writeFileSync(cfgPath, cfg);
    const lb = start('haproxy', ['-db', '-f', cfgPath]);
    procs.push(lb);
    const endpoint = `http://127.0.0.1:${port}/mcp`;
    await until('haproxy to answer', async () => (await status(`http://127.0.0.1:${port}/healthz`)) === 200);

    // owner is the replica whose audit lines name the session.
    const owner = (id) => until(`an audit line of session ${id}`, () => {
      const i = replicas.findIndex((r) => r.log.includes(`session=${id}`));
      return i >= 0 ? i + 1 : 0;
    }).then((i) => i - 1);

    const sessions = [];
    for (let i = 0; i < 3; i++) {
      const s = await connect(endpoint);
      clients.push(s.client);
      for (let j = 0; j < 3; j++) await wantSum(s.client, i, j);
      s.owner = await owner(s.transport.sessionId);
      sessions.push(s);
    }
    assert.equal(new Set(sessions.map((s) => s.owner)).size, 3, 'round robin put the three sessions on three replicas');
    for (const s of sessions) {
      const others = replicas.filter((_, i) => i !== s.owner);
      assert.ok(others.every((r) => !r.log.includes(s.transport.sessionId)), `session ${s.transport.sessionId} reached another replica`);
    }

    const killed = sessions[0].owner;
    replicas[killed].child.kill('SIGKILL');
    await replicas[killed].exited;
    await assert.rejects(callTool(sessions[0].client, 'get-sum', { a: 1, b: 2 }), /404|not found/i);
    for (const s of sessions.slice(1)) await wantSum(s.client, 7, 5);
    const again = await connect(endpoint);
    clients.push(again.client);
    await wantSum(again.client, 0, 11);
    assert.notEqual(await owner(again.transport.sessionId), killed);
  } catch (e) {
    e.message += '\n' + procs.map((p, i) => `process ${i} log:\n${p.log}`).join('\n');
    throw e;
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    for (const p of procs.reverse()) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  }
});
