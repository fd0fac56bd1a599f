// The official TypeScript SDK client against the bundled fetch plugin
// (e2e/fetch_test.go): it calls fetch once with each ARGS (a JSON object)
// and prints one JSON line per call, {"isError": ..., "text": ...}.
//
//   node fetch.mjs BIN DIR CACHE POLICY ARGS...
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, dir, cacheDir, config, ...calls] = process.argv.slice(2);
const client = new Client({ name: 'wasmcp-fetch', version: '1.0.0' });
const transport = new StdioClientTransport({
  command: bin,
  args: ['serve', '--dir', dir, '--cache-dir', cacheDir, '--config', config, '--wait-loaded'],
  stderr: 'inherit',
});
const timeout = 120_000;
await client.connect(transport, { timeout });
try {
  for (const args of calls) {
    const res = await client.callTool({ name: 'fetch', arguments: JSON.parse(args) }, undefined, { timeout });
    const text = res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
    console.log(JSON.stringify({ isError: res.isError === true, text }));
  }
} finally {
  await client.close();
}
