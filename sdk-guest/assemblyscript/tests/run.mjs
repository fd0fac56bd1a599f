// Runs the SDK's unit test module (tests/sdk.test.ts, built by `npm test`)
// under Node's WebAssembly with a stand-in for the wasmcp host's log import.
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";

const path = process.argv[2];
const wasi = new WASI({ version: "preview1", args: [], env: {}, returnOnExit: true });
let memory;
const levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const imports = {
  wasi_snapshot_preview1: wasi.wasiImport,
  wasmcp: {
    log(level, ptr, len) {
      const text = new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
      console.error(`${levels[Math.min(level, 7)]}: ${text}`);
    },
  },
};
const { instance } = await WebAssembly.instantiate(await readFile(path), imports);
memory = instance.exports.memory;
wasi.initialize(instance);
const failures = instance.exports.run();
if (failures > 0) {
  console.error(`${failures} checks failed`);
  process.exit(1);
}
console.log("ok");
