// Runs the SDK's unit test module (tests/sdk.test.ts, built by `npm test`)
// under Node's WebAssembly with stand-ins for the wasmcp host's imports.
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";

const path = process.argv[2];
const wasi = new WASI({ version: "preview1", args: [], env: {}, returnOnExit: true });
let memory;
let reply = new Uint8Array(0);
const levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const imports = {
  wasi_snapshot_preview1: wasi.wasiImport,
  wasmcp: {
    log(level, ptr, len) {
      const text = new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
      console.error(`${levels[Math.min(level, 7)]}: ${text}`);
    },
    // http_request answers with what it was sent, so that the tests can
    // check the request document: status 201, the request's head (the text
    // before the first LF) as header X-Head, whether there was a body as
    // X-Body, and the body. A URL with /status/N gets status N instead, and
    // one with /nohead a reply of status 0 without a head line.
    http_request(ptr, len) {
      const doc = new Uint8Array(memory.buffer, ptr, len).slice();
      const lf = doc.indexOf(10);
      const head = new TextDecoder().decode(lf < 0 ? doc : doc.subarray(0, lf));
      const url = JSON.parse(head).url;
      const status = /\/status\/(\d+)/.exec(url);
      if (status) {
        reply = new TextEncoder().encode(`stub: status ${status[1]}`);
        return (BigInt(status[1]) << 32n) | BigInt(reply.length);
      }
      if (url.includes("/nohead")) {
        reply = new TextEncoder().encode("no head");
        return BigInt(reply.length);
      }
      const answer = JSON.stringify({
        status: 201,
        url: url + "#answered",
        headers: [["X-Body", lf < 0 ? "no" : "yes"], ["X-Head", head]],
      });
      const body = lf < 0 ? new Uint8Array(0) : doc.subarray(lf + 1);
      reply = new Uint8Array([...new TextEncoder().encode(answer), 10, ...body]);
      return BigInt(reply.length);
    },
    read_reply(ptr, len) {
      const n = Math.min(len, reply.length);
      new Uint8Array(memory.buffer, ptr, n).set(reply.subarray(0, n));
      return n;
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
