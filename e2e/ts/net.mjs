// The official TypeScript SDK client against a plugin with network access
// (e2e/net_test.go): it calls the WAT guest's fetch tool once for an origin
// the policy allows and once for one it refuses, and prints one line each.
//
//   node net.mjs BIN DIR CACHE POLICY ALLOWED_URL REFUSED_URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, dir, cacheDir, config, allowedURL, refusedURL] = process.argv.slice(2);
const client = new Client({ name: 'wasmcp-net', version: '1.0.0' });
const transport = new StdioClientTransport({
  command: bin,
  args: ['serve', '--dir', dir, '--cache-dir', cacheDir, '--config', config, '--wait-loaded'],
  stderr: 'ignore',
});
const timeout = 120_000;
await client.connect(transport, { timeout });
try {
  for (const [name, url] of [['allowed', allowedURL], ['refused', refusedURL]]) {
    const res = await client.callTool({ name: 'fetch', arguments: { url } }, undefined, { timeout });
    if (res.isError) {
      console.log(`${name} isError ${res.content.map((c) => c.text).join(' ')}`);
    } else {
      const r = res.structuredContent;
      console.log(`${name} ok status=${r.status} body=${res.content[0].text}`);
    }
  }
} finally {
  await client.close();
}
