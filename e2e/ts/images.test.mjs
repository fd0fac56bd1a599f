// hyper-mcp's plugins as hyper-mcp publishes them — OCI images, signed with
// cosign — served by reference to the official TypeScript SDK client over
// stdio, from a real registry (Debian's docker-registry) on a loopback
// port. The images and their Sigstore bundles are made by
// e2e/internal/hyperimages (a virtual Sigstore), as e2e/oci_image_test.go
// makes them for go-sdk's client: the signed image serves and runs under
// the policy's identity; one signed by a stranger, one by the wrong issuer
// and an unsigned one are refused, each with a log line naming it; buildx's
// index serves the plugin, as does an ORAS artifact signed as Monty's plugin
// is; a component's image is refused saying what it is.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { callTool, diagnoseWith, startClient, textOf, timeout, workDir } from './harness.mjs';
import { registryBinary as binary, skipWithoutRegistry as skip, startRegistry } from './registry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let work;
let registry;
let env; // the server's environment: Docker's config in an empty directory
let refs;

before(async () => {
  if (skip) return;
  if (!binary) assert.fail('docker-registry is not installed: run make deps');
  work = workDir('wasmcp-e2e-images-');
  mkdirSync(join(work, 'docker'));
  env = { ...process.env, DOCKER_CONFIG: join(work, 'docker') };
  registry = await startRegistry(binary, work);
  const out = execFileSync(process.env.GO || 'go', ['run', './e2e/internal/hyperimages/cmd/publish',
    '-registry', registry.host, '-dir', work, '-wasm', join(root, 'host', 'testdata', 'thirdparty', 'rstime.wasm')],
  { cwd: root, env, encoding: 'utf8', timeout: 600_000 });
  refs = JSON.parse(out);
});

after(async () => {
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

// serve starts the server on an empty directory with args and returns it
// with a function that waits for a log line holding every one of texts.
async function serve(name, args) {
  const dir = join(work, name);
  mkdirSync(dir);
  const server = await startClient({ transport: 'stdio', dir, cacheDir: join(work, `${name}-cache`), args: ['--log-format', 'json', ...args], env });
  server.logged = async (...texts) => {
    const has = () => server.stderr().split('\n').some((l) => texts.every((t) => l.includes(t)));
    for (let i = 0; i < 200 && !has(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(has(), `no log line with ${texts.join(', ')}`);
  };
  return server;
}

test('signed images under a Sigstore policy', { timeout, skip }, async () => {
  const config = join(work, 'policy.json');
  writeFileSync(config, JSON.stringify({
    sources: [refs.signed, refs.stranger, refs.wrongIssuer, refs.unsigned],
    plugins: { 'time-plugin': { clock: true } },
  }));
  const server = await serve('signed', ['--config', config, '--sigstore', refs.sigstore]);
  try {
    await diagnoseWith(server.stderr)(async () => {
      const { tools } = await server.client.listTools({}, { timeout });
      assert.deepEqual(tools.map((t) => t.name).sort(), ['get_time', 'parse_time']);
      const res = await callTool(server.client, 'get_time', { timezone: 'UTC' });
      assert.notEqual(res.isError, true, textOf(res));
      assert.match(textOf(res), /\d{4}/);
      await server.logged('plugin not loaded', refs.stranger, 'no valid signature', 'mallory');
      await server.logged('plugin not loaded', refs.wrongIssuer, 'no valid signature', 'https://accounts.example.com');
      await server.logged('plugin not loaded', refs.unsigned, 'not signed');
      await server.logged('plugin from registry', refs.signed);
    })();
  } finally {
    await server.close();
  }
});

test('image layouts: buildx\'s index serves, a component is refused', { timeout, skip }, async () => {
  const server = await serve('layouts', ['--plugin', refs.index, '--plugin', refs.component]);
  try {
    await diagnoseWith(server.stderr)(async () => {
      const res = await callTool(server.client, 'parse_time', { time: 'Tue, 1 Jul 2003 10:52:37 +0200' });
      assert.notEqual(res.isError, true, textOf(res));
      assert.match(textOf(res), /1057049557/);
      await server.logged('plugin not loaded', refs.component, 'a WebAssembly component, not a core module');
    })();
  } finally {
    await server.close();
  }
});

test('an ORAS artifact, signed as Monty\'s plugin is, serves', { timeout, skip }, async () => {
  const server = await serve('oras', ['--plugin', refs.oras, '--sigstore', refs.sigstore]);
  try {
    await diagnoseWith(server.stderr)(async () => {
      const res = await callTool(server.client, 'parse_time', { time: 'Tue, 1 Jul 2003 10:52:37 +0200' });
      assert.notEqual(res.isError, true, textOf(res));
      assert.match(textOf(res), /1057049557/);
      await server.logged('plugin from registry', refs.oras);
    })();
  } finally {
    await server.close();
  }
});
