// The bench's CPU-bound work in AssemblyScript, lang/kernel/kernel.go line
// for line, as a wasmcp tool, work_as: {"kernel":"scan"|"diff","n":N}
// returns the checksum as text. AssemblyScript has no native target: the
// bench compares it with the C kernel natively.

import { CallResult, JSONObject, Tool, addTool } from "../../../sdk-guest/assemblyscript/assembly";
export * from "../../../sdk-guest/assemblyscript/assembly/abi";

class Buffer {
  p: Uint8Array;
  len: i32 = 0;
  constructor(cap: i32) {
    this.p = new Uint8Array(cap);
  }
  byte(c: u8): void {
    this.p[this.len++] = c;
  }
  ascii(s: string): void {
    for (let i = 0; i < s.length; i++) this.p[this.len++] = <u8>s.charCodeAt(i);
  }
  uint(v: u64): void {
    const tmp = new StaticArray<u8>(20);
    let i = 20;
    do {
      tmp[--i] = <u8>(48 + v % 10);
      v /= 10;
    } while (v != 0);
    for (; i < 20; i++) this.p[this.len++] = tmp[i];
  }
}

const KEY_OTHER = 0;
const KEY_ID = 1;
const KEY_N = 2;

function scanBytes(b: Uint8Array, len: i32): u64 {
  let sum: u64 = 0;
  let id: u64 = 0;
  let key = KEY_OTHER;
  for (let i = 0; i < len; ) {
    const c = b[i];
    if (c == 0x22) {
      const start = i + 1;
      i = start;
      while (i < len && b[i] != 0x22) {
        if (b[i] == 0x5c) i++;
        i++;
      }
      const end = i;
      i++; // the closing quote
      if (i < len && b[i] == 0x3a) {
        if (end - start == 2 && b[start] == 0x69 && b[start + 1] == 0x64) key = KEY_ID;
        else if (end - start == 1 && b[start] == 0x6e) key = KEY_N;
        else key = KEY_OTHER;
      }
    } else if (c >= 0x30 && c <= 0x39) {
      let v: u64 = 0;
      while (i < len && b[i] >= 0x30 && b[i] <= 0x39) {
        v = v * 10 + <u64>(b[i] - 0x30);
        i++;
      }
      if (key == KEY_ID) id = v;
      else if (key == KEY_N && v % 3 == 0) sum += id;
    } else {
      i++;
    }
  }
  return sum;
}

function scan(n: i32): u64 {
  const b = new Buffer(48 * n + 2);
  b.byte(0x5b);
  for (let i = 0; i < n; i++) {
    if (i > 0) b.byte(0x2c);
    b.ascii('{"id":');
    b.uint(<u64>i);
    b.ascii(',"name":"item-');
    b.uint(<u64>i);
    b.ascii('","n":');
    b.uint((<u64>i * 7919) % 10007);
    b.byte(0x7d);
  }
  b.byte(0x5d);
  return scanBytes(b.p, b.len) + <u64>b.len;
}

function myers(a: Int32Array, n: i32, b: Int32Array, m: i32): i32 {
  const limit = n + m;
  const v = new Int32Array(2 * limit + 2);
  const off = limit + 1;
  for (let d = 0; d <= limit; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x: i32;
      if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) x = v[off + k + 1];
      else x = v[off + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] == b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return limit;
}

function diff(n: i32): u64 {
  const a = new Int32Array(n);
  const b = new Int32Array(n + n / 50 + 1);
  let m = 0;
  for (let i = 0; i < n; i++) {
    a[i] = i;
    if (i % 50 != 17) {
      b[m++] = i;
      continue;
    }
    const kind = (i / 50) % 3;
    if (kind == 0) {
      b[m++] = -i - 1;
    } else if (kind == 2) {
      b[m++] = i;
      b[m++] = -i - 1;
    } // 1: dropped
  }
  return <u64>myers(a, n, b, m);
}

function work(args: JSONObject): CallResult {
  const n = <i32>args.getNumber("n");
  const sum = args.getString("kernel") == "scan" ? scan(n) : diff(n);
  return CallResult.text(sum.toString());
}

addTool(
  new Tool(
    "work_as",
    "The bench's CPU-bound kernels in AssemblyScript.",
    '{"type":"object","properties":{"kernel":{"enum":["scan","diff"]},"n":{"type":"integer","minimum":0}},' +
      '"required":["kernel","n"]}',
    work,
  ),
);
