// A small JSON codec: AssemblyScript's standard library has none.
//
// JSON.parse reads UTF-8 bytes (the arguments the host writes into memory)
// into JSONValue trees; JSONValue.toString writes compact JSON, its numbers
// with formatNumber.

/** The kind of a JSONValue. */
export enum JSONKind {
  Null,
  Bool,
  Number,
  String,
  Array,
  Object,
}

/** A parsed or constructed JSON value. Narrow it with the is/as methods. */
export class JSONValue {
  constructor(public readonly kind: JSONKind) {}

  isNull(): bool { return this.kind == JSONKind.Null; }
  isBool(): bool { return this.kind == JSONKind.Bool; }
  isNumber(): bool { return this.kind == JSONKind.Number; }
  isString(): bool { return this.kind == JSONKind.String; }
  isArray(): bool { return this.kind == JSONKind.Array; }
  isObject(): bool { return this.kind == JSONKind.Object; }

  /** The boolean, or fallback when this is not one. */
  asBool(fallback: bool = false): bool {
    return this.kind == JSONKind.Bool ? changetype<JSONBool>(this).value : fallback;
  }
  /** The number, or fallback when this is not one. */
  asNumber(fallback: f64 = 0): f64 {
    return this.kind == JSONKind.Number ? changetype<JSONNumber>(this).value : fallback;
  }
  /** The string, or fallback when this is not one. */
  asString(fallback: string = ""): string {
    return this.kind == JSONKind.String ? changetype<JSONString>(this).value : fallback;
  }
  /** This value as an array, or null. */
  asArray(): JSONArray | null {
    return this.kind == JSONKind.Array ? changetype<JSONArray>(this) : null;
  }
  /** This value as an object, or null. */
  asObject(): JSONObject | null {
    return this.kind == JSONKind.Object ? changetype<JSONObject>(this) : null;
  }

  /** Compact JSON text. */
  toString(): string {
    const parts = new Array<string>();
    write(parts, this);
    return parts.join("");
  }

  static null(): JSONValue { return new JSONValue(JSONKind.Null); }
  static bool(v: bool): JSONValue { return new JSONBool(v); }
  static number(v: f64): JSONValue { return new JSONNumber(v); }
  static string(v: string): JSONValue { return new JSONString(v); }
}

export class JSONBool extends JSONValue {
  constructor(public value: bool) { super(JSONKind.Bool); }
}

export class JSONNumber extends JSONValue {
  constructor(public value: f64) { super(JSONKind.Number); }
}

export class JSONString extends JSONValue {
  constructor(public value: string) { super(JSONKind.String); }
}

/** A JSON array. */
export class JSONArray extends JSONValue {
  items: JSONValue[] = [];
  constructor() { super(JSONKind.Array); }

  get length(): i32 { return this.items.length; }
  /** Element i, or null past the end. */
  at(i: i32): JSONValue | null {
    return i >= 0 && i < this.items.length ? this.items[i] : null;
  }
  push(v: JSONValue): JSONArray {
    this.items.push(v);
    return this;
  }
}

/** A JSON object. Keys keep their order; setting a key again replaces its
 * value in place, and when parsing the last duplicate wins, as in
 * JavaScript and Go. */
export class JSONObject extends JSONValue {
  keys: string[] = [];
  values: JSONValue[] = [];
  private index: Map<string, i32> = new Map();
  constructor() { super(JSONKind.Object); }

  has(key: string): bool { return this.index.has(key); }
  /** The value of key, or null when absent. */
  get(key: string): JSONValue | null {
    return this.index.has(key) ? this.values[this.index.get(key)] : null;
  }
  /** The string member key, or fallback when absent or not a string. */
  getString(key: string, fallback: string = ""): string {
    const v = this.get(key);
    return v ? v.asString(fallback) : fallback;
  }
  /** The number member key, or fallback when absent or not a number. */
  getNumber(key: string, fallback: f64 = 0): f64 {
    const v = this.get(key);
    return v ? v.asNumber(fallback) : fallback;
  }
  /** The boolean member key, or fallback when absent or not a boolean. */
  getBool(key: string, fallback: bool = false): bool {
    const v = this.get(key);
    return v ? v.asBool(fallback) : fallback;
  }
  /** The object member key, or null. */
  getObject(key: string): JSONObject | null {
    const v = this.get(key);
    return v ? v.asObject() : null;
  }
  /** The array member key, or null. */
  getArray(key: string): JSONArray | null {
    const v = this.get(key);
    return v ? v.asArray() : null;
  }

  set(key: string, value: JSONValue): JSONObject {
    if (this.index.has(key)) {
      this.values[this.index.get(key)] = value;
    } else {
      this.index.set(key, this.keys.length);
      this.keys.push(key);
      this.values.push(value);
    }
    return this;
  }
  setString(key: string, v: string): JSONObject { return this.set(key, new JSONString(v)); }
  setNumber(key: string, v: f64): JSONObject { return this.set(key, new JSONNumber(v)); }
  setBool(key: string, v: bool): JSONObject { return this.set(key, new JSONBool(v)); }
  setNull(key: string): JSONObject { return this.set(key, JSONValue.null()); }
}

// ---- writing ----------------------------------------------------------

/** formatNumber writes v as AssemblyScript's toString does (0.5, 1e+21),
 * but a whole number without its ".0" (12, not 12.0), and NaN and
 * infinities, which JSON lacks, as null (as JavaScript's JSON.stringify). */
export function formatNumber(v: f64): string {
  if (!isFinite(v)) return "null";
  if (Math.abs(v) < 9007199254740992 && Math.floor(v) == v) return (<i64>v).toString();
  return v.toString();
}

function write(parts: string[], v: JSONValue): void {
  switch (v.kind) {
    case JSONKind.Null: parts.push("null"); break;
    case JSONKind.Bool: parts.push(changetype<JSONBool>(v).value ? "true" : "false"); break;
    case JSONKind.Number: parts.push(formatNumber(changetype<JSONNumber>(v).value)); break;
    case JSONKind.String: parts.push(quote(changetype<JSONString>(v).value)); break;
    case JSONKind.Array: {
      const a = changetype<JSONArray>(v);
      parts.push("[");
      for (let i = 0; i < a.items.length; i++) {
        if (i > 0) parts.push(",");
        write(parts, a.items[i]);
      }
      parts.push("]");
      break;
    }
    default: {
      const o = changetype<JSONObject>(v);
      parts.push("{");
      for (let i = 0; i < o.keys.length; i++) {
        if (i > 0) parts.push(",");
        parts.push(quote(o.keys[i]));
        parts.push(":");
        write(parts, o.values[i]);
      }
      parts.push("}");
    }
  }
}

const HEX = "0123456789abcdef";

/** s as a JSON string literal. Lone surrogates become U+FFFD, so that the
 * text encodes to valid UTF-8. */
export function quote(s: string): string {
  const parts = new Array<string>();
  parts.push('"');
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c == 0x22) esc = '\\"';
    else if (c == 0x5c) esc = "\\\\";
    else if (c == 0x0a) esc = "\\n";
    else if (c == 0x0d) esc = "\\r";
    else if (c == 0x09) esc = "\\t";
    else if (c < 0x20) esc = "\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) == 0xdc00) {
      i++; // a valid pair
      continue;
    } else if (c >= 0xd800 && c < 0xe000) esc = "\\ufffd";
    if (esc === null) continue;
    parts.push(s.substring(run, i));
    parts.push(esc);
    run = i + 1;
  }
  parts.push(s.substring(run));
  parts.push('"');
  return parts.join("");
}

// ---- parsing ----------------------------------------------------------

/** Deeper nesting than this is refused rather than risking the stack. */
const MAX_DEPTH = 1000;

class Parser {
  pos: usize;
  constructor(public end: usize, start: usize) { this.pos = start; }

  peek(): i32 { return this.pos < this.end ? <i32>load<u8>(this.pos) : -1; }

  ws(): void {
    while (this.pos < this.end) {
      const c = load<u8>(this.pos);
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) break;
      this.pos++;
    }
  }

  literal(word: string): bool {
    const n = <usize>word.length;
    if (this.end - this.pos < n) return false;
    for (let i: usize = 0; i < n; i++) {
      if (<i32>load<u8>(this.pos + i) != word.charCodeAt(<i32>i)) return false;
    }
    this.pos += n;
    return true;
  }

  value(depth: i32): JSONValue | null {
    const c = this.peek();
    if (c == 0x22) {
      const s = this.string();
      return s === null ? null : new JSONString(s);
    }
    if (c == 0x7b || c == 0x5b) return depth >= MAX_DEPTH ? null : c == 0x7b ? this.object(depth) : this.array(depth);
    if (c == 0x74) return this.literal("true") ? new JSONBool(true) : null;
    if (c == 0x66) return this.literal("false") ? new JSONBool(false) : null;
    if (c == 0x6e) return this.literal("null") ? JSONValue.null() : null;
    return this.number();
  }

  object(depth: i32): JSONValue | null {
    const o = new JSONObject();
    this.pos++;
    this.ws();
    if (this.peek() == 0x7d) {
      this.pos++;
      return o;
    }
    for (;;) {
      if (this.peek() != 0x22) return null;
      const k = this.string();
      if (k === null) return null;
      this.ws();
      if (this.peek() != 0x3a) return null;
      this.pos++;
      this.ws();
      const v = this.value(depth + 1);
      if (v === null) return null;
      o.set(k, v);
      this.ws();
      const c = this.peek();
      this.pos++;
      if (c == 0x7d) return o;
      if (c != 0x2c) return null;
      this.ws();
    }
    return null; // not reached: the loop only returns
  }

  array(depth: i32): JSONValue | null {
    const a = new JSONArray();
    this.pos++;
    this.ws();
    if (this.peek() == 0x5d) {
      this.pos++;
      return a;
    }
    for (;;) {
      const v = this.value(depth + 1);
      if (v === null) return null;
      a.items.push(v);
      this.ws();
      const c = this.peek();
      this.pos++;
      if (c == 0x5d) return a;
      if (c != 0x2c) return null;
      this.ws();
    }
    return null; // not reached: the loop only returns
  }

  digits(): bool {
    const start = this.pos;
    while (this.pos < this.end && load<u8>(this.pos) >= 0x30 && load<u8>(this.pos) <= 0x39) this.pos++;
    return this.pos > start;
  }

  /** number follows JSON's grammar exactly (no '+', no leading zeros). */
  number(): JSONValue | null {
    const start = this.pos;
    if (this.peek() == 0x2d) this.pos++;
    if (this.peek() == 0x30) this.pos++;
    else if (!this.digits()) return null;
    if (this.peek() == 0x2e) {
      this.pos++;
      if (!this.digits()) return null;
    }
    if (this.peek() == 0x65 || this.peek() == 0x45) {
      this.pos++;
      if (this.peek() == 0x2b || this.peek() == 0x2d) this.pos++;
      if (!this.digits()) return null;
    }
    return new JSONNumber(F64.parseFloat(String.UTF8.decodeUnsafe(start, this.pos - start)));
  }

  hex4(): i32 {
    if (this.end - this.pos < 4) return -1;
    let v = 0;
    for (let i = 0; i < 4; i++) {
      const c = <i32>load<u8>(this.pos++);
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      if (d < 0) return -1;
      v = (v << 4) | d;
    }
    return v;
  }

  /** string decodes the string at pos (its opening quote). \u escapes are
   * UTF-16 code units, which is what AssemblyScript strings hold, so
   * surrogate pairs need no work here. */
  string(): string | null {
    this.pos++;
    const parts = new Array<string>();
    let run = this.pos;
    while (this.pos < this.end) {
      const c = load<u8>(this.pos);
      if (c == 0x22) {
        parts.push(String.UTF8.decodeUnsafe(run, this.pos - run));
        this.pos++;
        return parts.join("");
      }
      if (c < 0x20) return null;
      if (c != 0x5c) {
        this.pos++;
        continue;
      }
      parts.push(String.UTF8.decodeUnsafe(run, this.pos - run));
      this.pos++;
      if (this.pos >= this.end) return null;
      const e = load<u8>(this.pos++);
      if (e == 0x22) parts.push('"');
      else if (e == 0x5c) parts.push("\\");
      else if (e == 0x2f) parts.push("/");
      else if (e == 0x62) parts.push("\b");
      else if (e == 0x66) parts.push("\f");
      else if (e == 0x6e) parts.push("\n");
      else if (e == 0x72) parts.push("\r");
      else if (e == 0x74) parts.push("\t");
      else if (e == 0x75) {
        const u = this.hex4();
        if (u < 0) return null;
        parts.push(String.fromCharCode(u));
      } else return null;
      run = this.pos;
    }
    return null;
  }
}

/** parseJSONBytes parses the UTF-8 JSON text at ptr[0:len], or returns null
 * when it is not exactly one valid JSON value. */
export function parseJSONBytes(ptr: usize, len: usize): JSONValue | null {
  const p = new Parser(ptr + len, ptr);
  p.ws();
  const v = p.value(0);
  if (v === null) return null;
  p.ws();
  return p.pos == p.end ? v : null;
}

/** parseJSON parses a JSON text, or returns null when it is not exactly one
 * valid JSON value. */
export function parseJSON(text: string): JSONValue | null {
  const buf = String.UTF8.encode(text);
  return parseJSONBytes(changetype<usize>(buf), <usize>buf.byteLength);
}
