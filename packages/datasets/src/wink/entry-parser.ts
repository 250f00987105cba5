// Byte-level parser of the entries of wink's `"vectors":{ "word":[v0, ..., v(dim-1), l2norm, wordIndex], ... }`
// object. It works on Buffers (never decodes the 294 MB file to one string) and reports "incomplete" when a
// chunk ends inside an entry, so the caller can carry the tail over to the next chunk.
import { DatasetError } from '../errors.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** Powers of ten that are exact doubles (10^0 .. 10^22). */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** What parseEntry found at a position. */
export const ENTRY = { incomplete: 0, entry: 1, end: 2 } as const;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Parses one entry at a time; `key`, `values` and `next` describe the last entry parsed. */
export class EntryParser {
  /** The entry's key (the word). */
  key = '';
  /** The entry's numbers: dim values, then the l2 norm, then the word index. */
  readonly values: Float64Array;
  /** Position just after the last thing parsed. */
  next = 0;
  private numberValue = 0;

  /** `file` names the source in errors; `width` = numbers per entry (dim + 2). */
  constructor(
    private readonly file: string,
    private readonly width: number,
  ) {
    this.values = new Float64Array(width);
  }

  /**
   * Parses the entry (or the object's closing brace) at buf[pos]; `base` is buf[0]'s offset in the file, for
   * errors. Returns ENTRY.entry (key/values/next set), ENTRY.end (next set after '}') or ENTRY.incomplete.
   */
  parse(buf: Uint8Array, pos: number, base: number): number {
    const n = buf.length;
    let p = skipSpace(buf, pos);
    if (p < n && buf[p] === COMMA) p = skipSpace(buf, p + 1);
    if (p >= n) return ENTRY.incomplete;
    if (buf[p] === CLOSE_BRACE) {
      this.next = p + 1;
      return ENTRY.end;
    }
    if (buf[p] !== QUOTE) throw this.malformed(base + p, 'a word in quotes');
    const keyStart = p + 1;
    const keyEnd = stringEnd(buf, keyStart);
    if (keyEnd < 0) return ENTRY.incomplete;
    p = skipSpace(buf, keyEnd + 1);
    if (p >= n) return ENTRY.incomplete;
    if (buf[p] !== COLON) throw this.malformed(base + p, "':' after a word");
    p = skipSpace(buf, p + 1);
    if (p >= n) return ENTRY.incomplete;
    if (buf[p] !== OPEN_BRACKET) throw this.malformed(base + p, "'[' opening a vector");
    p += 1;
    for (let i = 0; i < this.width; i++) {
      p = skipSpace(buf, p);
      const end = this.parseNumber(buf, p, base);
      if (end < 0) return ENTRY.incomplete;
      this.values[i] = this.numberValue;
      p = skipSpace(buf, end);
      if (p >= n) return ENTRY.incomplete;
      const separator = i === this.width - 1 ? CLOSE_BRACKET : COMMA;
      if (buf[p] !== separator) {
        throw this.malformed(
          base + p,
          buf[p] === CLOSE_BRACKET
            ? `${this.width} numbers (dimensions + norm + index), found ${i + 1}`
            : `'${String.fromCharCode(separator)}' after number ${i + 1}`,
        );
      }
      p += 1;
    }
    this.key = decodeKey(buf, keyStart, keyEnd);
    this.next = p;
    return ENTRY.entry;
  }

  /** Parses a JSON number at buf[pos] into numberValue; returns the end position, or -1 if the buffer ends first. */
  private parseNumber(buf: Uint8Array, pos: number, base: number): number {
    const n = buf.length;
    let p = pos;
    let negative = false;
    if (p < n && buf[p] === MINUS) {
      negative = true;
      p++;
    }
    let mantissa = 0;
    let digits = 0;
    let fraction = 0;
    while (p < n) {
      const b = buf[p] ?? 0;
      if (b < ZERO || b > NINE) break;
      mantissa = mantissa * 10 + (b - ZERO);
      digits++;
      p++;
    }
    if (p < n && buf[p] === DOT) {
      p++;
      while (p < n) {
        const b = buf[p] ?? 0;
        if (b < ZERO || b > NINE) break;
        mantissa = mantissa * 10 + (b - ZERO);
        digits++;
        fraction++;
        p++;
      }
    }
    let exponent = false;
    if (p < n && (buf[p] === LOWER_E || buf[p] === UPPER_E)) {
      exponent = true;
      p++;
      if (p < n && (buf[p] === MINUS || buf[p] === PLUS)) p++;
      while (p < n && (buf[p] ?? 0) >= ZERO && (buf[p] ?? 0) <= NINE) p++;
    }
    if (p >= n) return -1;
    if (digits === 0) throw this.malformed(base + pos, 'a number');
    if (exponent || digits > 15 || fraction > 22) {
      this.numberValue = Number(Buffer.from(buf.buffer, buf.byteOffset + pos, p - pos).toString('latin1'));
    } else {
      const magnitude = mantissa / (POW10[fraction] ?? 1);
      this.numberValue = negative ? -magnitude : magnitude;
    }
    if (!Number.isFinite(this.numberValue))
      throw new DatasetError(this.file, `value at byte offset ${base + pos} is not a finite number`);
    return p;
  }

  private malformed(offset: number, expected: string): DatasetError {
    return new DatasetError(this.file, `malformed JSON at byte offset ${offset}: expected ${expected}`);
  }
}

function skipSpace(buf: Uint8Array, pos: number): number {
  let p = pos;
  while (p < buf.length && isSpace(buf[p] ?? 0)) p++;
  return p;
}

/** Index of the closing quote of a JSON string whose content starts at `pos`, or -1 if the buffer ends first. */
function stringEnd(buf: Uint8Array, pos: number): number {
  let p = pos;
  while (p < buf.length) {
    const b = buf[p];
    if (b === BACKSLASH) p += 2;
    else if (b === QUOTE) return p;
    else p++;
  }
  return -1;
}

function decodeKey(buf: Uint8Array, start: number, end: number): string {
  const text = Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
  return text.includes('\\') ? String(JSON.parse(`"${text}"`)) : text;
}
