// One line of a WordNet data.<pos> file (wndb(5WN)):
//   synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] p_cnt [ptr...] [frames...] | gloss
// w_cnt is 2 hex digits, lex_id 1 hex digit, p_cnt 3 decimal digits; a pointer is
//   pointer_symbol synset_offset pos source/target(4 hex digits)
// and data.verb adds f_cnt (2 digits) then f_cnt frames "+ f_num w_num".
import { DatasetError } from '../errors.ts';
import { relationOfSymbol } from './relations.ts';

/** Part-of-speech letters of the data files, and the ss_type letters each file may hold. */
export const POS_TYPES: Readonly<Record<'n' | 'v' | 'a' | 'r', readonly string[]>> = {
  n: ['n'],
  v: ['v'],
  a: ['a', 's'],
  r: ['r'],
};

/** A pointer as written: relation index, target pos letter (file's) and offset. */
export interface RawPointer {
  /** Index into RELATIONS. */
  readonly relation: number;
  /** Target data file: 'n', 'v', 'a' or 'r' (a satellite 's' maps to 'a'). */
  readonly pos: 'n' | 'v' | 'a' | 'r';
  /** Target synset offset (byte offset of its line in that file). */
  readonly offset: number;
}

/** One parsed synset line. */
export interface SynsetLine {
  /** Byte offset of the line, as written in its first field. */
  readonly offset: number;
  /** Words, '_' turned into ' ', adjective markers removed. */
  readonly lemmas: string[];
  /** Pointers. */
  readonly pointers: RawPointer[];
  /** Gloss. */
  readonly gloss: string;
}

const OFFSET = /^\d{8}$/;
const LEX_FILE = /^\d{2}$/;
const HEX2 = /^[0-9a-fA-F]{2}$/;
const HEX1 = /^[0-9a-fA-F]$/;
const HEX4 = /^[0-9a-fA-F]{4}$/;
const DEC3 = /^\d{3}$/;
const DEC2 = /^\d{2}$/;
const ADJECTIVE_MARKER = /\((?:a|p|ip)\)$/;

/** Where a line is, for errors. */
export interface LineLocation {
  /** File path. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
}

/** Parses one synset line of the data file for `pos`; throws DatasetError naming file and line if it is malformed. */
export function parseSynsetLine(text: string, pos: 'n' | 'v' | 'a' | 'r', where: LineLocation): SynsetLine {
  const bad = (problem: string): DatasetError => new DatasetError(where.file, problem, { line: where.line });
  const bar = text.indexOf(' | ');
  if (bar < 0) throw bad("no ' | ' before the gloss");
  const fields = text.slice(0, bar).trim().split(' ');
  let i = 0;
  const next = (what: string): string => {
    const f = fields[i++];
    if (f === undefined) throw bad(`line ends before ${what}`);
    return f;
  };
  const offsetText = next('synset_offset');
  if (!OFFSET.test(offsetText)) throw bad(`synset_offset ${JSON.stringify(offsetText)} is not 8 digits`);
  const lexFile = next('lex_filenum');
  if (!LEX_FILE.test(lexFile)) throw bad(`lex_filenum ${JSON.stringify(lexFile)} is not 2 digits`);
  const ssType = next('ss_type');
  if (!POS_TYPES[pos].includes(ssType))
    throw bad(`ss_type ${JSON.stringify(ssType)} does not belong in the '${pos}' data file`);
  const wordCountText = next('w_cnt');
  if (!HEX2.test(wordCountText)) throw bad(`w_cnt ${JSON.stringify(wordCountText)} is not 2 hex digits`);
  const wordCount = parseInt(wordCountText, 16);
  if (wordCount === 0) throw bad('w_cnt is 0: a synset has at least one word');
  const lemmas: string[] = [];
  for (let w = 0; w < wordCount; w++) {
    const word = next(`word ${w + 1} of ${wordCount}`);
    const lexId = next(`lex_id of word ${w + 1}`);
    if (!HEX1.test(lexId))
      throw bad(`lex_id ${JSON.stringify(lexId)} of word ${JSON.stringify(word)} is not 1 hex digit`);
    lemmas.push(word.replace(ADJECTIVE_MARKER, '').replaceAll('_', ' '));
  }
  const pointerCountText = next('p_cnt');
  if (!DEC3.test(pointerCountText)) throw bad(`p_cnt ${JSON.stringify(pointerCountText)} is not 3 digits`);
  const pointerCount = Number(pointerCountText);
  const pointers: RawPointer[] = [];
  for (let p = 0; p < pointerCount; p++) {
    const symbol = next(`pointer ${p + 1} of ${pointerCount}`);
    const relation = relationOfSymbol(symbol);
    if (relation === undefined) throw bad(`unknown pointer symbol ${JSON.stringify(symbol)}`);
    const target = next(`offset of pointer ${p + 1}`);
    if (!OFFSET.test(target)) throw bad(`pointer ${p + 1} offset ${JSON.stringify(target)} is not 8 digits`);
    const targetPos = next(`pos of pointer ${p + 1}`);
    const filePos = targetPos === 's' ? 'a' : targetPos;
    if (filePos !== 'n' && filePos !== 'v' && filePos !== 'a' && filePos !== 'r')
      throw bad(`pointer ${p + 1} pos ${JSON.stringify(targetPos)} is not n, v, a, s or r`);
    const sourceTarget = next(`source/target of pointer ${p + 1}`);
    if (!HEX4.test(sourceTarget))
      throw bad(`pointer ${p + 1} source/target ${JSON.stringify(sourceTarget)} is not 4 hex digits`);
    pointers.push({ relation, pos: filePos, offset: Number(target) });
  }
  if (pos === 'v') {
    const frameCountText = next('f_cnt');
    if (!DEC2.test(frameCountText)) throw bad(`f_cnt ${JSON.stringify(frameCountText)} is not 2 digits`);
    i += 3 * Number(frameCountText);
    if (i > fields.length) throw bad(`line ends inside its ${Number(frameCountText)} verb frames`);
  }
  if (i !== fields.length) throw bad(`${fields.length - i} unexpected field(s) before the gloss`);
  return { offset: Number(offsetText), lemmas, pointers, gloss: text.slice(bar + 3).trim() };
}
