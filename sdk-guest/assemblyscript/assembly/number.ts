// Number formatting for JSON, exactly as Go's encoding/json (and, but for
// -0, JavaScript's JSON.stringify) do it: the shortest digits that read back as the same
// double (the nearest such digits when there are several), in plain
// notation when 1e-6 <= |v| < 1e21 and in exponent notation otherwise.
//
// AssemblyScript's own dtoa (Grisu2) sometimes gives a longer or a
// different digit string (0.1 + 0.2 prints as 0.30000000000000007), which
// would make results differ from the other SDKs' byte for byte. So digits
// are found exactly: the double's exact decimal expansion and the bounds of
// the interval of numbers that round to it are computed with a small
// bignum, and the shortest decimal inside the interval is taken.

/** A decimal number: digits × 10^exp, digits without leading zeros. */
class Dec {
  constructor(public digits: string, public exp: i32) {}
}

const LIMB: u64 = 1000000000; // base of the bignum limbs (little-endian)

function mulSmall(limbs: u64[], m: u64): void {
  let carry: u64 = 0;
  for (let i = 0; i < limbs.length; i++) {
    const x = limbs[i] * m + carry;
    limbs[i] = x % LIMB;
    carry = x / LIMB;
  }
  while (carry > 0) {
    limbs.push(carry % LIMB);
    carry /= LIMB;
  }
}

/** exact returns m × 2^e as a Dec, exactly. */
function exact(m: u64, e: i32): Dec {
  const limbs: u64[] = [m % LIMB, (m / LIMB) % LIMB, m / LIMB / LIMB];
  let exp = 0;
  if (e >= 0) {
    for (let k = e; k > 0; k -= 29) mulSmall(limbs, <u64>1 << <u64>min(k, 29));
  } else {
    // m × 2^e = m × 5^-e × 10^e
    for (let k = -e; k > 0; k -= 12) mulSmall(limbs, <u64>Math.pow(5, <f64>min(k, 12)));
    exp = e;
  }
  let s = "";
  for (let i = limbs.length - 1; i >= 0; i--) {
    const part = limbs[i].toString();
    s += s.length == 0 ? (limbs[i] == 0 ? "" : part) : "0".repeat(9 - part.length) + part;
  }
  let end = s.length;
  while (end > 1 && s.charCodeAt(end - 1) == 0x30) end--;
  return new Dec(s.substring(0, end), exp + s.length - end);
}

/** cmp compares two positive Decs. */
function cmp(a: Dec, b: Dec): i32 {
  const ma = a.digits.length + a.exp;
  const mb = b.digits.length + b.exp;
  if (ma != mb) return ma < mb ? -1 : 1;
  const n = max(a.digits.length, b.digits.length);
  for (let i = 0; i < n; i++) {
    const ca = i < a.digits.length ? a.digits.charCodeAt(i) : 0x30;
    const cb = i < b.digits.length ? b.digits.charCodeAt(i) : 0x30;
    if (ca != cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

/** up returns t plus one unit in its last digit. */
function up(t: Dec): Dec {
  let d = t.digits;
  let i = d.length - 1;
  while (i >= 0 && d.charCodeAt(i) == 0x39) i--;
  if (i < 0) return new Dec("1", t.exp + d.length);
  return new Dec(d.substring(0, i) + String.fromCharCode(d.charCodeAt(i) + 1), t.exp + d.length - 1 - i);
}

/** shortest returns the shortest Dec that parses back to v (v > 0). */
function shortest(v: f64): Dec {
  const bits = reinterpret<u64>(v);
  const be = <i32>((bits >> 52) & 0x7ff);
  const frac = bits & ((<u64>1 << 52) - 1);
  const m = be == 0 ? frac : frac | (<u64>1 << 52);
  const e = be == 0 ? -1074 : be - 1075;
  const d = exact(m, e);
  // Every decimal strictly between low and high reads back as v; the
  // bounds themselves do when m is even (ties round to even).
  const high = exact(2 * m + 1, e - 1);
  const low = frac == 0 && be > 1 ? exact(4 * m - 1, e - 2) : exact(2 * m - 1, e - 1);
  const inclusive = (m & 1) == 0;
  for (let k = 1; k < d.digits.length; k++) {
    const t = new Dec(d.digits.substring(0, k), d.exp + d.digits.length - k);
    const u = up(t);
    const next = d.digits.charCodeAt(k);
    const rest = d.digits.length > k + 1; // nonzero digits follow (no trailing zeros)
    const odd = (t.digits.charCodeAt(k - 1) & 1) == 1;
    const nearestUp = next > 0x35 || (next == 0x35 && (rest || odd));
    const first = nearestUp ? u : t;
    const second = nearestUp ? t : u;
    if (inside(first, low, high, inclusive)) return first;
    if (inside(second, low, high, inclusive)) return second;
  }
  return d;
}

function inside(c: Dec, low: Dec, high: Dec, inclusive: bool): bool {
  const l = cmp(c, low);
  const h = cmp(c, high);
  return (l > 0 || (inclusive && l == 0)) && (h < 0 || (inclusive && h == 0));
}

/** digitsOf returns the shortest digits of |v| (v finite, non-zero) and
 * the decimal exponent of the first one. */
function digitsOf(a: f64): Dec {
  if (a < 9007199254740992 && Math.floor(a) == a) {
    const s = (<u64>a).toString();
    return new Dec(s, s.length - 1);
  }
  const d = shortest(a);
  let end = d.digits.length;
  while (end > 1 && d.digits.charCodeAt(end - 1) == 0x30) end--;
  return new Dec(d.digits.substring(0, end), d.exp + d.digits.length - 1);
}

/** plain writes digits dig, whose first has exponent e, without exponent. */
function plain(dig: string, e: i32): string {
  if (e < 0) return "0." + "0".repeat(-e - 1) + dig;
  if (dig.length <= e + 1) return dig + "0".repeat(e + 1 - dig.length);
  return dig.substring(0, e + 1) + "." + dig.substring(e + 1);
}

/** formatNumber formats v for JSON (see the top of this file). NaN and
 * infinities, which JSON lacks, become null, as in JavaScript; -0 is "-0",
 * as in Go. */
export function formatNumber(v: f64): string {
  if (!isFinite(v)) return "null";
  if (v == 0) return 1 / v < 0 ? "-0" : "0"; // Go keeps the sign of -0; JavaScript drops it
  const sign = v < 0 ? "-" : "";
  const d = digitsOf(Math.abs(v));
  const e = d.exp;
  if (e < -6 || e >= 21) {
    const mant = d.digits.length > 1 ? d.digits.charAt(0) + "." + d.digits.substring(1) : d.digits;
    return sign + mant + "e" + (e < 0 ? "-" : "+") + abs(e).toString();
  }
  return sign + plain(d.digits, e);
}

/** formatDecimal formats v for text: the shortest digits that read back as
 * v, never in exponent notation (12, 0.5, 1000000000000000000000,
 * 0.00000015), as Go's strconv.FormatFloat(v, 'f', -1, 64) does. */
export function formatDecimal(v: f64): string {
  if (isNaN(v)) return "NaN";
  if (!isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return 1 / v < 0 ? "-0" : "0";
  const d = digitsOf(Math.abs(v));
  return (v < 0 ? "-" : "") + plain(d.digits, d.exp);
}
