// Calls one tool of a guest module in Node's V8, following ABI.md section 3,
// and prints the median time of a call: BenchmarkGuestPhases compares it
// with wazero on the same module. The host's imports do nothing.
//
//	node v8guest.mjs MODULE.wasm TOOL ARGS.json CALLS
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [wasmPath, tool, argsPath, calls] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: [], env: {} });
const mod = await WebAssembly.compile(readFileSync(wasmPath));
const host = {};
for (const imp of WebAssembly.Module.imports(mod)) {
  if (imp.module === 'wasmcp') host[imp.name] = () => 0;
}
const inst = await WebAssembly.instantiate(mod, { wasi_snapshot_preview1: wasi.wasiImport, wasmcp: host });
wasi.initialize(inst);
const { wasmcp_alloc, wasmcp_call, memory } = inst.exports;
const name = Buffer.from(tool);
const args = readFileSync(argsPath);

function call() {
  const p = wasmcp_alloc(name.length + args.length) >>> 0;
  const mem = new Uint8Array(memory.buffer);
  mem.set(name, p);
  mem.set(args, p + name.length);
  const r = BigInt.asUintN(64, wasmcp_call(p, name.length, p + name.length, args.length));
  const doc = Buffer.from(memory.buffer, Number(r >> 32n), Number(r & 0xffffffffn)).toString();
  if (!doc.startsWith('{') || doc.includes('"isError":true')) throw new Error(`${tool}: ${doc.slice(0, 300)}`);
}

call(); // warm up
const times = [];
for (let i = 0; i < +calls; i++) {
  const start = performance.now();
  call();
  times.push(performance.now() - start);
}
times.sort((a, b) => a - b);
console.log(`median ${times[times.length >> 1]} ms`);
