const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** base64Encode encodes bytes as standard, padded base64. */
export function base64Encode(bytes: Uint8Array): string {
  const parts = new Array<string>();
  const n = bytes.length;
  for (let i = 0; i < n; i += 3) {
    const b1: u32 = i + 1 < n ? bytes[i + 1] : 0;
    const b2: u32 = i + 2 < n ? bytes[i + 2] : 0;
    const v: u32 = (<u32>bytes[i] << 16) | (b1 << 8) | b2;
    parts.push(ALPHABET.charAt(v >> 18));
    parts.push(ALPHABET.charAt((v >> 12) & 63));
    parts.push(i + 1 < n ? ALPHABET.charAt((v >> 6) & 63) : "=");
    parts.push(i + 2 < n ? ALPHABET.charAt(v & 63) : "=");
  }
  return parts.join("");
}
