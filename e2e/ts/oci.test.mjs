// End-to-end tests of modules served from an OCI registry, with the official
// TypeScript MCP SDK client over stdio: a real registry (Debian's
// docker-registry, the CNCF distribution server) on a loopback port, modules
// pushed with `wasmcp push`, served by tag and by digest; a tag moved and
// SIGHUP is list_changed; the registry stopped, the server keeps serving.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { bin, callTool, diagnoseWith, textOf, timeout, trackToolsChanged, workDir } from './harness.mjs';
import { registryBinary as binary, skipWithoutRegistry as skip, startRegistry } from './registry.mjs';

const testdata = join(dirname(fileURLToPath(import.meta.url)), '..', 'testdata');


let work;
let registry;
let env; // the server's environment: Docker's config in an empty directory
let client;
let transport;
let stderr = '';
let toolsChanged;
let byTag;

const diagnose = diagnoseWith(() => stderr);

// push stores a testdata module (assembled from its .wat) at ref and
// returns the manifest digest wasmcp push prints.
function push(name, ref) {
  const wasm = join(work, `${name}.wasm`);
  execFileSync('wat2wasm', [join(testdata, `${name}.wat`), '-o', wasm]);
  return execFileSync(bin, ['push', wasm, ref], { env, encoding: 'utf8' }).trim();
}

before(async () => {
  if (skip) return;
  if (!binary) assert.fail('docker-registry is not installed: run make deps');
  work = workDir('wasmcp-e2e-oci-');
  mkdirSync(join(work, 'docker'));
  env = { ...process.env, DOCKER_CONFIG: join(work, 'docker') };
  registry = await startRegistry(binary, work);
  byTag = `${registry.host}/team/hello:v1`;
  push('hello', byTag);
  const digest = push('structured', `${registry.host}/team/structured:v1`);
  const byDigest = `${registry.host}/team/structured@${digest}`;

  transport = new StdioClientTransport({
    command: bin,
    args: ['serve', '--plugin', byTag, '--plugin', byDigest, '--cache-dir', join(work, 'cache'), '--wait-loaded'],
    env,
    stderr: 'pipe',
  });
  transport.stderr.on('data', (d) => { stderr += d; });
  client = new Client({ name: 'wasmcp-e2e-ts-oci', version: '1.0.0' });
  toolsChanged = trackToolsChanged(client);
  await client.connect(transport, { timeout });
});

after(async () => {
  await client?.close();
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

// untilLog waits for the server's log, from offset mark on, to contain
// text.
async function untilLog(mark, text) {
  while (!stderr.slice(mark).includes(text)) await new Promise((r) => setTimeout(r, 50));
}

test('modules served by tag and by digest', { timeout, skip }, diagnose(async () => {
  const { tools } = await client.listTools({}, { timeout });
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('hello'), `hello (by tag) not listed: ${names}`);
  assert.ok(names.includes('ok'), `ok (structured, by digest) not listed: ${names}`);
  assert.equal(textOf(await callTool(client, 'hello', {})), 'hello from a hot-loaded module');
}));

test('a moved tag and SIGHUP is list_changed and the new module', { timeout, skip }, diagnose(async () => {
  push('hello2', byTag);
  const changed = toolsChanged.next;
  process.kill(transport.pid, 'SIGHUP');
  await changed;
  assert.equal(textOf(await callTool(client, 'hello', {})), 'hello from the second version');
}));

test('the registry stopped, the server keeps serving', { timeout, skip }, diagnose(async () => {
  await registry.stop();
  const mark = stderr.length;
  process.kill(transport.pid, 'SIGHUP');
  await untilLog(mark, 'registry unreachable; serving the cached copy');
  await untilLog(mark, 'configuration reloaded');
  assert.equal(textOf(await callTool(client, 'hello', {})), 'hello from the second version');
  const { tools } = await client.listTools({}, { timeout });
  assert.ok(tools.some((t) => t.name === 'ok'));
}));
