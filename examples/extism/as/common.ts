// What the plugins of this directory share: their abort, and the helpers
// that read arguments and write results.
import { Host, Memory } from "@extism/as-pdk";
import { error_set } from "@extism/as-pdk/lib/env";
import { JSON } from "assemblyscript-json/assembly";

// Named with --use abort=common/abort, so that a plugin imports nothing but
// the host functions it declares.
export function abort(message: string | null, file: string | null, line: u32, column: u32): void {
  const msg = "abort: " + (message === null ? "" : message) + " at " +
    (file === null ? "" : file) + ":" + line.toString() + ":" + column.toString();
  error_set(Memory.allocateString(msg).offset);
  unreachable();
}

export function stringArg(args: JSON.Obj, key: string): string {
  const v = args.getString(key);
  return v === null ? "" : v.valueOf();
}

// text outputs a CallToolResult of one text block.
export function text(s: string): i32 {
  outputString(`{"content":[{"type":"text","text":${quote(s)}}]}`);
  return 0;
}

export function fail(message: string): i32 {
  error_set(Memory.allocateString(message).offset);
  return 1;
}

// Host.outputString sizes its output in UTF-16 units; this writes UTF-8 bytes.
export function outputString(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

// quote is s as a JSON string.
export function quote(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c == 0x0a) out += "\\n";
    else if (c < 0x20) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += String.fromCharCode(c);
  }
  return out + '"';
}
