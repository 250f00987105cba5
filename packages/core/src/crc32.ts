// CRC-32 (IEEE 802.3, polynomial 0xEDB88320), table-driven, slicing by 4 bytes.

const TABLES = buildTables();

function buildTables(): Uint32Array {
  const t = new Uint32Array(4 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n] ?? 0;
    for (let s = 1; s < 4; s++) {
      c = (t[c & 0xff] ?? 0) ^ (c >>> 8);
      t[s * 256 + n] = c >>> 0;
    }
  }
  return t;
}

/** Continues a CRC-32 over `bytes` (start with crc = 0); returns the unsigned result. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  const t = TABLES;
  let c = ~crc >>> 0;
  let i = 0;
  const n = bytes.length;
  const end4 = n - (n % 4);
  for (; i < end4; i += 4) {
    c ^= (bytes[i] ?? 0) | ((bytes[i + 1] ?? 0) << 8) | ((bytes[i + 2] ?? 0) << 16) | ((bytes[i + 3] ?? 0) << 24);
    c =
      (t[768 + (c & 0xff)] ?? 0) ^
      (t[512 + ((c >>> 8) & 0xff)] ?? 0) ^
      (t[256 + ((c >>> 16) & 0xff)] ?? 0) ^
      (t[c >>> 24] ?? 0);
  }
  for (; i < n; i++) c = (t[(c ^ (bytes[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8);
  return ~c >>> 0;
}
