// RFC 6570 URI templates, read backwards: which variables make a template
// expand to a given URI.
//
// A URI matches when some values of the variables expand to it exactly, as
// RFC 6570 expands them: a value holds the characters its operator leaves
// as they are (unreserved ones; for + and #, reserved ones too) and
// percent-encoded bytes. Levels 1 to 3 and the prefix modifier are read;
// the explode modifier is refused when the template is parsed. Where a URI
// could split in several ways, earlier variables take as much as they can
// (file:///{+dir}/{name} reads a/b/c as dir a/b, name c), and a variable
// left out of the URI is left out of the variables.

import { JSONObject } from "./json";

/** An operator of RFC 6570 and how it writes values. */
class Op {
  constructor(
    public c: string,
    public first: string,
    public sep: string,
    public named: bool,
    /** An empty named value is written name= (else name). */
    public emptyEq: bool,
    /** Reserved characters stay as they are. */
    public reserved: bool,
  ) {}
}

/** operator returns the operator that body starts with, or the one of an
 * expression without one. Made on demand: a module without templates runs
 * no code of this file. */
function operator(body: string): Op {
  const c = body.length > 0 ? body.charAt(0) : "";
  if (c == "+") return new Op("+", "", ",", false, false, true);
  if (c == "#") return new Op("#", "#", ",", false, false, true);
  if (c == ".") return new Op(".", ".", ".", false, false, false);
  if (c == "/") return new Op("/", "/", "/", false, false, false);
  if (c == ";") return new Op(";", ";", ";", true, false, false);
  if (c == "?") return new Op("?", "?", "&", true, true, false);
  if (c == "&") return new Op("&", "&", "&", true, true, false);
  return new Op("", "", ",", false, false, false);
}

class Var {
  /** max: the prefix modifier's length, or 0. */
  constructor(public name: string, public max: i32) {}
}

/** A literal (op null) or an expression of n variables from vars[first];
 * state is the index of its first memo state. */
class Part {
  constructor(public op: Op | null, public lit: string, public first: i32, public n: i32, public state: i32) {}
}

function hex(c: i32): i32 {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function pct(s: string, i: i32): bool {
  return i + 2 < s.length && s.charCodeAt(i) == 0x25 && hex(s.charCodeAt(i + 1)) >= 0 && hex(s.charCodeAt(i + 2)) >= 0;
}

function isAlnum(c: i32): bool {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

/** allowed reports whether the character c stays as it is in a value: an
 * unreserved one, or with reserved a reserved one, :/?#[]@!$&'()*+,;= */
function allowed(c: i32, reserved: bool): bool {
  if (isAlnum(c) || c == 0x2d || c == 0x2e || c == 0x5f || c == 0x7e) return true;
  if (!reserved) return false;
  return c == 0x3a || c == 0x2f || c == 0x3f || c == 0x23 || c == 0x5b || c == 0x5d || c == 0x40 ||
    c == 0x21 || c == 0x24 || (c >= 0x26 && c <= 0x2c) || c == 0x3b || c == 0x3d;
}

/** A parsed template. parse sets error when the SDK cannot match it. */
export class UriTemplate {
  parts: Part[] = [];
  vars: Var[] = [];
  states: i32 = 0;
  error: string | null = null;

  static parse(text: string): UriTemplate {
    const t = new UriTemplate();
    const why = t.read(text);
    if (why !== null) t.error = why;
    return t;
  }

  private read(text: string): string | null {
    let i = 0;
    while (i < text.length) {
      const state = this.states;
      if (text.charCodeAt(i) != 0x7b) {
        let end = i;
        while (end < text.length && text.charCodeAt(end) != 0x7b && text.charCodeAt(end) != 0x7d) end++;
        if (end < text.length && text.charCodeAt(end) == 0x7d) return "a '}' without its '{'";
        this.parts.push(new Part(null, text.substring(i, end), 0, 0, state));
        this.states++;
        i = end;
        continue;
      }
      const close = text.indexOf("}", i);
      const open = text.indexOf("{", i + 1);
      if (close < 0 || (open >= 0 && open < close)) return "a '{' without its '}'";
      let body = text.substring(i + 1, close);
      const op = operator(body);
      body = body.substring(op.c.length);
      if (body.length > 0 && "=,!@|".includes(body.charAt(0))) return "the operators = , ! @ | are reserved";
      const first = this.vars.length;
      const specs = body.split(",");
      for (let k = 0; k < specs.length; k++) {
        const why = this.parseVar(specs[k]);
        if (why !== null) return why;
      }
      const n = this.vars.length - first;
      this.parts.push(new Part(op, "", first, n, state));
      this.states += 2 * n; // each variable, before or after the first value
      i = close + 1;
    }
    return null;
  }

  private parseVar(spec: string): string | null {
    let i = 0;
    let dotOk = false;
    while (i < spec.length && spec.charCodeAt(i) != 0x3a && spec.charCodeAt(i) != 0x2a) {
      const c = spec.charCodeAt(i);
      if (c == 0x2e && dotOk) {
        dotOk = false;
        i++;
      } else if (isAlnum(c) || c == 0x5f) {
        dotOk = true;
        i++;
      } else if (pct(spec, i)) {
        dotOk = true;
        i += 3;
      } else {
        return "a variable name holds a character other than letters, digits, _, . and %XX";
      }
    }
    if (!dotOk) return "a variable name is empty or ends with '.'";
    const name = spec.substring(0, i);
    if (i < spec.length && spec.charCodeAt(i) == 0x2a) return "the explode modifier (*) is not supported: use {+var} for a path";
    let max = 0;
    if (i < spec.length) {
      const digits = spec.substring(i + 1);
      if (digits.length < 1 || digits.length > 4 || digits.charCodeAt(0) == 0x30) return "a prefix modifier must be :1 to :9999";
      for (let k = 0; k < digits.length; k++) {
        const d = digits.charCodeAt(k) - 0x30;
        if (d < 0 || d > 9) return "a prefix modifier must be :1 to :9999";
        max = max * 10 + d;
      }
    }
    for (let k = 0; k < this.vars.length; k++) {
      if (this.vars[k].name == name) return "a variable appears twice";
    }
    this.vars.push(new Var(name, max));
    return null;
  }

  /** hasVar reports whether the template has the variable name. */
  hasVar(name: string): bool {
    for (let k = 0; k < this.vars.length; k++) if (this.vars[k].name == name) return true;
    return false;
  }

  /** The variables that make the template expand to uri, percent-decoded,
   * as an object of strings, or null when no values do. */
  match(uri: string): JSONObject | null {
    const m = new Matcher(this, uri);
    if (!m.match(0, 0, false, 0)) return null;
    const vars = new JSONObject();
    for (let k = 0; k < this.vars.length; k++) {
      if (m.start[k] >= 0) vars.setString(this.vars[k].name, decode(uri.substring(m.start[k], m.end[k])));
    }
    return vars;
  }
}

/** decode percent-decodes s, whose characters are ASCII, as UTF-8: each
 * byte of no valid sequence becomes U+FFFD, as the C SDK's JSON writer
 * has it (the standard library's decoder would take the bytes after an
 * invalid one into it). */
function decode(s: string): string {
  const bytes = new Uint8Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; n++) {
    if (s.charCodeAt(i) == 0x25) {
      bytes[n] = <u8>((hex(s.charCodeAt(i + 1)) << 4) | hex(s.charCodeAt(i + 2)));
      i += 3;
    } else {
      bytes[n] = <u8>s.charCodeAt(i++);
    }
  }
  const out = new Uint8Array(3 * n);
  let m = 0;
  for (let i = 0; i < n; ) {
    const len = utf8Len(bytes, i, n);
    if (len == 0) {
      out[m++] = 0xef; // U+FFFD
      out[m++] = 0xbf;
      out[m++] = 0xbd;
      i++;
    } else {
      for (let k = 0; k < len; k++) out[m++] = bytes[i++];
    }
  }
  return String.UTF8.decode(out.slice(0, m).buffer);
}

/** utf8Len returns the length of the valid UTF-8 sequence at b[i:n], or 0. */
function utf8Len(b: Uint8Array, i: i32, n: i32): i32 {
  const c = <i32>b[i];
  if (c < 0x80) return 1;
  let len = 0;
  let min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (n - i < len) return 0;
  let r = c & (0x3f >> (len - 1));
  for (let k = 1; k < len; k++) {
    const d = <i32>b[i + k];
    if ((d & 0xc0) != 0x80) return 0;
    r = (r << 6) | (d & 0x3f);
  }
  return r < min || r > 0x10ffff || (r >= 0xd800 && r < 0xe000) ? 0 : len;
}

class Matcher {
  /** A bit per state and position: known not to match. */
  failed: Uint8Array;
  start: i32[];
  end: i32[];

  constructor(public t: UriTemplate, public u: string) {
    this.failed = new Uint8Array((t.states * (u.length + 1)) / 8 + 1);
    this.start = new Array<i32>(t.vars.length).fill(-1);
    this.end = new Array<i32>(t.vars.length).fill(-1);
  }

  has(pos: i32, s: string): bool {
    return this.u.startsWith(s, pos);
  }

  /** match reports whether the URI from pos is an expansion of the
   * template from variable vi of part pi, started telling whether the part
   * has written a value already. Failures are remembered, so that no state
   * is tried twice at a position: the work grows with the URI's length
   * squared at most. */
  match(pi: i32, vi: i32, started: bool, pos: i32): bool {
    if (pi == this.t.parts.length) return pos == this.u.length;
    const p = this.t.parts[pi];
    const op = p.op;
    if (op !== null && vi == p.n) return this.match(pi + 1, 0, false, pos);
    const state = op !== null ? p.state + 2 * vi + (started ? 1 : 0) : p.state;
    const bit = state * (this.u.length + 1) + pos;
    if ((<i32>this.failed[bit >> 3] >> (bit & 7)) & 1) return false;
    let ok: bool;
    if (op === null) {
      ok = this.has(pos, p.lit) && this.match(pi + 1, 0, false, pos + p.lit.length);
    } else {
      ok = this.present(pi, op, vi, started, pos) || this.match(pi, vi + 1, started, pos);
    }
    if (!ok) this.failed[bit >> 3] |= <u8>(<i32>1 << (bit & 7));
    return ok;
  }

  /** present tries variable vi of part pi as written at pos. */
  present(pi: i32, op: Op, vi: i32, started: bool, pos: i32): bool {
    const lead = started ? op.sep : op.first;
    if (!this.has(pos, lead)) return false;
    pos += lead.length;
    if (!op.named) return this.value(pi, op, vi, pos);
    const v = this.t.parts[pi].first + vi;
    const name = this.t.vars[v].name;
    if (!this.has(pos, name)) return false;
    pos += name.length;
    if (this.has(pos, "=")) return this.value(pi, op, vi, pos + 1);
    if (op.emptyEq || !this.match(pi, vi + 1, true, pos)) return false;
    this.start[v] = pos;
    this.end[v] = pos;
    return true;
  }

  /** value tries the values that may start at pos, longest first, and the
   * rest of the template after each. */
  value(pi: i32, op: Op, vi: i32, pos: i32): bool {
    const v = this.t.parts[pi].first + vi;
    const max = this.t.vars[v].max;
    let end = pos;
    let chars = 0;
    while (end < this.u.length) {
      let step = 0;
      if (pct(this.u, end)) step = 3;
      else if (allowed(this.u.charCodeAt(end), op.reserved)) step = 1;
      else break;
      // The prefix modifier counts characters: a UTF-8 continuation byte
      // is part of the one before.
      const b = step == 3 ? (hex(this.u.charCodeAt(end + 1)) << 4) | hex(this.u.charCodeAt(end + 2)) : 0;
      if (b < 0x80 || b >= 0xc0) {
        if (max > 0 && chars == max) break;
        chars++;
      }
      end += step;
    }
    for (let q = end; q >= pos; q--) {
      // Every '%' in the span starts a triplet: no end falls inside one.
      if ((q > pos && this.u.charCodeAt(q - 1) == 0x25) || (q > pos + 1 && this.u.charCodeAt(q - 2) == 0x25)) continue;
      if (this.match(pi, vi + 1, true, q)) {
        this.start[v] = pos;
        this.end[v] = q;
        return true;
      }
    }
    return false;
  }
}
