// The exports of the wasmcp guest ABI (abi/ABI.md). A module's entry file
// re-exports them with one line:
//
//   export * from "<path to sdk-guest/assemblyscript>/assembly/abi";

import { LogLevel, log } from "./log";
import { Export, Offers } from "./offers";
import { callTool, describe, refused } from "./tool";

/** The ABI version this SDK speaks. Not exported: entry files re-export
 * this file, and every export of theirs becomes a module export. */
const ABI_VERSION: i32 = 1;

// Globals are GC roots: they keep the buffers the host reads and writes
// alive between exports. Instances are single-threaded and never
// re-entered (ABI.md §3).
let input: ArrayBuffer | null = null; // the region of the last wasmcp_alloc
let output: ArrayBuffer | null = null; // the last document returned
let describeDoc: ArrayBuffer | null = null;

/** Inputs above this are refused rather than trapping in the allocator. */
const MAX_ALLOC: u32 = 1 << 30;

function pack(buf: ArrayBuffer): u64 {
  return (<u64>changetype<usize>(buf) << 32) | <u64>buf.byteLength;
}

function encode(doc: string): ArrayBuffer {
  return String.UTF8.encode(doc, false, String.UTF8.ErrorMode.REPLACE);
}

export function wasmcp_abi_version(): i32 {
  return ABI_VERSION;
}

export function wasmcp_alloc(size: u32): u32 {
  output = null; // the host copied it before calling again
  if (size > MAX_ALLOC) return 0;
  input = new ArrayBuffer(<i32>size);
  return <u32>changetype<usize>(input);
}

export function wasmcp_describe(): u64 {
  if (describeDoc === null) {
    const doc = describe();
    if (doc === null) {
      log(LogLevel.Critical, "wasmcp_describe: " + refused()!);
      return 0;
    }
    describeDoc = encode(doc);
  }
  return pack(describeDoc!);
}

/** inInput reports whether name and args, which follow it, lie in the
 * region of the last wasmcp_alloc, the only one known to be ours (ABI.md
 * §3). An export of one input passes it as name, argsLen 0. */
function inInput(namePtr: u32, nameLen: u32, argsPtr: u32, argsLen: u32): bool {
  const buf = input;
  return (
    buf !== null &&
    <usize>namePtr == changetype<usize>(buf) &&
    argsPtr == namePtr + nameLen &&
    <u64>nameLen + <u64>argsLen <= <u64>buf.byteLength
  );
}

/** emit keeps doc's bytes until the host copied them and returns where
 * they are. */
function emit(doc: string): u64 {
  input = null;
  const out = encode(doc);
  output = out;
  return pack(out);
}

export function wasmcp_call(namePtr: u32, nameLen: u32, argsPtr: u32, argsLen: u32): u64 {
  if (!inInput(namePtr, nameLen, argsPtr, argsLen)) {
    return emit('{"content":[{"type":"text","text":"wasmcp_call: name and arguments are not in the region returned by wasmcp_alloc"}],"isError":true}');
  }
  const name = String.UTF8.decodeUnsafe(<usize>namePtr, <usize>nameLen);
  return emit(callTool(name, <usize>argsPtr, <usize>argsLen));
}

/** offered answers an export of resources and prompts through Offers.serve,
 * set once a definition is added. A host calls these exports only for a
 * module whose Describe document lists what they serve (ABI.md §2): before,
 * 0 says there is no document. */
function offered(which: Export, namePtr: u32, nameLen: u32, argsPtr: u32, argsLen: u32): u64 {
  const serve = Offers.serve;
  if (serve === null) return 0;
  const ok = inInput(namePtr, nameLen, argsPtr, argsLen);
  return emit(serve(which, ok, <usize>namePtr, <usize>nameLen, <usize>argsPtr, <usize>argsLen));
}

export function wasmcp_read(uriPtr: u32, uriLen: u32): u64 {
  return offered(Export.Read, uriPtr, uriLen, uriPtr + uriLen, 0);
}

export function wasmcp_prompt(namePtr: u32, nameLen: u32, argsPtr: u32, argsLen: u32): u64 {
  return offered(Export.Prompt, namePtr, nameLen, argsPtr, argsLen);
}

export function wasmcp_complete(reqPtr: u32, reqLen: u32): u64 {
  return offered(Export.Complete, reqPtr, reqLen, reqPtr + reqLen, 0);
}
