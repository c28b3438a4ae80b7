// An AudioWorkletGlobalScope has no TextDecoder or TextEncoder, and wasm-bindgen's glue
// makes one of each when it loads (for strings crossing the boundary: error messages,
// names). This module, imported before the glue, gives the scope small UTF-8 ones.
const g = globalThis;

if (typeof g.TextDecoder === 'undefined') {
  g.TextDecoder = class TextDecoder {
    decode(bytes) {
      if (!bytes) return '';
      const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer || bytes, bytes.byteOffset || 0, bytes.byteLength);
      let out = '';
      for (let i = 0; i < b.length;) {
        const c = b[i++];
        let cp;
        if (c < 0x80) cp = c;
        else if (c < 0xe0) cp = ((c & 0x1f) << 6) | (b[i++] & 0x3f);
        else if (c < 0xf0) cp = ((c & 0x0f) << 12) | ((b[i++] & 0x3f) << 6) | (b[i++] & 0x3f);
        else cp = ((c & 0x07) << 18) | ((b[i++] & 0x3f) << 12) | ((b[i++] & 0x3f) << 6) | (b[i++] & 0x3f);
        out += String.fromCodePoint(cp);
      }
      return out;
    }
  };
}

if (typeof g.TextEncoder === 'undefined') {
  const utf8 = (s) => {
    const out = [];
    for (const ch of s) {
      const cp = ch.codePointAt(0);
      if (cp < 0x80) out.push(cp);
      else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
      else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
      else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    }
    return Uint8Array.from(out);
  };
  g.TextEncoder = class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(s = '') { return utf8(String(s)); }
    encodeInto(s, dest) {
      const bytes = utf8(String(s));
      // Whole characters only: stop before one that does not fit.
      let n = Math.min(bytes.length, dest.length);
      while (n > 0 && n < bytes.length && (bytes[n] & 0xc0) === 0x80) n--;
      dest.set(bytes.subarray(0, n));
      let read = 0;
      for (let i = 0; i < n; i++) if ((bytes[i] & 0xc0) !== 0x80) read += bytes[i] >= 0xf0 ? 2 : 1;
      return { read, written: n };
    }
  };
}
