// A real OCI registry for the tests: Debian's docker-registry (the CNCF
// distribution server) on a loopback port.

import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { freePort } from './harness.mjs';

// registryBin is the registry server, or '' when it is not installed: the
// tests then skip, except in CI, where every test must run.
function registryBin() {
  try {
    return execFileSync('sh', ['-c', 'command -v docker-registry'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

// startRegistry runs docker-registry on a free loopback port with storage in
// dir, and returns its host:port and a function that stops it.
export async function startRegistry(binary, dir) {
  const host = `127.0.0.1:${await freePort()}`;
  const config = join(dir, 'registry.yml');
  writeFileSync(config, `version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: ${join(dir, 'storage')}
http:
  addr: ${host}
`);
  const proc = spawn(binary, ['serve', config], { stdio: 'ignore' });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  for (let i = 0; i < 200; i++) {
    try {
      const res = await fetch(`http://${host}/v2/`);
      if (res.ok) return { host, stop: async () => { proc.kill('SIGKILL'); await exited; } };
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill('SIGKILL');
  throw new Error(`docker-registry did not answer on ${host}`);
}

// registryBinary is docker-registry's path, or ''; skipWithoutRegistry is
// node:test's skip option for the tests that need it.
export const registryBinary = registryBin();
export const skipWithoutRegistry = !registryBinary && !process.env.CI
  ? 'docker-registry not found: install Debian\'s docker-registry package (make deps does, as root)' : false;
