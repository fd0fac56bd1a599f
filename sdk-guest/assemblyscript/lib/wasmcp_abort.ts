// The module's abort (failed assertion, out-of-bounds access, out of
// memory): log the reason through the host, then trap. The WASI shim's abort
// would write it to stderr, which the host discards. It formats into static
// memory because it may run when the allocator itself has failed.

// @ts-ignore: decorator
@external("wasmcp", "log")
declare function wasmcp_abort_log(level: u32, ptr: usize, len: usize): void;

// @ts-ignore: decorator
@lazy const ABORT_BUF_SIZE: usize = 2048;
// @ts-ignore: decorator
@lazy const abortBuf = memory.data(2048);

function abortPut(pos: usize, s: string | null): usize {
  if (s === null) return pos;
  // Leave room for the line and column; cut long messages.
  const room = <i32>((ABORT_BUF_SIZE - 32 - (pos - abortBuf)) / 3);
  const n = min(s.length, room);
  return pos + String.UTF8.encodeUnsafe(changetype<usize>(s), n, pos, false, String.UTF8.ErrorMode.REPLACE);
}

function abortNumber(pos: usize, v: u32): usize {
  let digits: usize = 1;
  for (let t = v; t >= 10; t /= 10) digits++;
  for (let i = digits; i > 0; i--) {
    store<u8>(pos + i - 1, 0x30 + (v % 10));
    v /= 10;
  }
  return pos + digits;
}

function abortText(pos: usize, s: string): usize {
  for (let i = 0; i < s.length; i++) store<u8>(pos + i, <u8>s.charCodeAt(i));
  return pos + s.length;
}

export function wasmcp_abort(
  message: string | null = null,
  fileName: string | null = null,
  line: u32 = 0,
  column: u32 = 0,
): void {
  let p = abortText(abortBuf, "abort: ");
  p = abortPut(p, message);
  p = abortText(p, " at ");
  p = abortPut(p, fileName);
  p = abortText(p, ":");
  p = abortNumber(p, line);
  p = abortText(p, ":");
  p = abortNumber(p, column);
  wasmcp_abort_log(5, abortBuf, p - abortBuf); // critical
  unreachable();
}

// trace() lines go to the host log at debug level.
export function wasmcp_trace(message: string, n: i32 = 0, a0: f64 = 0, a1: f64 = 0, a2: f64 = 0, a3: f64 = 0, a4: f64 = 0): void {
  let text = "trace: " + message;
  if (n > 0) text += " " + a0.toString();
  if (n > 1) text += " " + a1.toString();
  if (n > 2) text += " " + a2.toString();
  if (n > 3) text += " " + a3.toString();
  if (n > 4) text += " " + a4.toString();
  const buf = String.UTF8.encode(text, false, String.UTF8.ErrorMode.REPLACE);
  wasmcp_abort_log(0, changetype<usize>(buf), <usize>buf.byteLength);
}
