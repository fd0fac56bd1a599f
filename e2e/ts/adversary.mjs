// The official TypeScript SDK client as the adversarial tests use it
// (e2e/adversary_lists_test.go): it lists every tool with Client.listTools,
// which also compiles each outputSchema with the SDK's validator, then calls
// one tool with each arguments document read from a file. It prints one
// line per step and exits 1 on the first step the client throws on.
//
//   node adversary.mjs BIN DIR CACHE [TOOL CASES.json]
import { readFileSync } from 'node:fs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, dir, cacheDir, tool, casesFile] = process.argv.slice(2);
const client = new Client({ name: 'wasmcp-adversary', version: '1.0.0' });
const transport = new StdioClientTransport({
  command: bin, args: ['serve', '--dir', dir, '--cache-dir', cacheDir, '--wait-loaded'], stderr: 'ignore',
});
const timeout = 120_000;
let failed = false;
try {
  await client.connect(transport, { timeout });
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  console.log('tools ' + names.join(' '));
  if (tool) {
    for (const [name, args] of Object.entries(JSON.parse(readFileSync(casesFile, 'utf8')))) {
      try {
        const res = await client.callTool({ name: tool, arguments: args }, undefined, { timeout });
        console.log(`case ${name} ${res.isError ? 'isError' : 'ok'}`);
      } catch (e) {
        console.log(`case ${name} THROWS ${String(e.message).replace(/\s+/g, ' ').slice(0, 300)}`);
        failed = true;
      }
    }
  }
} catch (e) {
  console.log(`THROWS ${String(e.message).replace(/\s+/g, ' ').slice(0, 500)}`);
  failed = true;
} finally {
  await client.close();
}
process.exit(failed ? 1 : 0);
