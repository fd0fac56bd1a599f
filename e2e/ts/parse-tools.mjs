// Parses a tools/list result (JSON on stdin) with the official TypeScript
// SDK's ListToolsResultSchema, as its Client does, and exits non-zero with
// the SDK's complaint when it would refuse the list. e2e/lists_test.go runs
// it on every list the server gives for a set of odd definitions.
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const res = ListToolsResultSchema.safeParse(JSON.parse(input));
if (!res.success) {
  console.error(JSON.stringify(res.error.issues));
  process.exit(1);
}
console.log(res.data.tools.map((t) => t.name).join('\n'));
