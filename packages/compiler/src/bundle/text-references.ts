/**
 * How `berrypack/2` stores a text once (docs/bundle-format.md, "Text references"): a template
 * or code body that is already in the routine's own file becomes `{slice: [start, end]}`, the
 * UTF-8 byte range of that file, and the loader puts the text back (content-view.ts).
 */

export type StoredSegment = { text: string } | { slice: [number, number] } | { path: string } | { env: string };

/** Lines of one text searched for one at a time before the rest is stored as it is: bounds the work on text from elsewhere. */
const MAX_MISSES = 256;
/** Shorter texts stay literal unless they extend the slice before them: `{"slice":[…]}` would be longer. */
const MIN_SLICE = 16;

/**
 * The template's segments with each literal text replaced by slices of `file` where it occurs
 * there, in order, from `from` (a UTF-16 offset, the body's start). Whatever does not occur
 * verbatim (an escaped marker, text an include brought in) stays literal. Any slice with the
 * same text is a correct one; the search is deterministic, so the bytes are too.
 */
export function storedTemplate(segments: readonly ({ text: string } | { path: string } | { env: string })[], file: string, from: number): StoredSegment[] {
  const offsets = new ByteOffsets(file);
  const out: StoredSegment[] = [];
  let cursor = from;
  for (const segment of segments) {
    if (!('text' in segment)) {
      out.push(segment);
      continue;
    }
    const whole = segment.text.length < MIN_SLICE ? -1 : file.indexOf(segment.text, cursor);
    if (whole !== -1) {
      out.push({ slice: [offsets.at(whole), offsets.at(whole + segment.text.length)] });
      cursor = whole + segment.text.length;
      continue;
    }
    cursor = byLines(segment.text, file, cursor, offsets, out);
  }
  return out;
}

/** A text that does not occur whole: each line found in order becomes (part of) a slice, the others literal text. */
function byLines(text: string, file: string, from: number, offsets: ByteOffsets, out: StoredSegment[]): number {
  let cursor = from;
  let misses = 0;
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 || misses >= MAX_MISSES ? text.length : newline + 1;
    const line = text.slice(start, end);
    const last = out[out.length - 1];
    const continues = last !== undefined && 'slice' in last && last.slice[1] === offsets.at(cursor) && file.startsWith(line, cursor);
    const skip = continues || misses >= MAX_MISSES || line.length < MIN_SLICE;
    const at = continues ? cursor : skip ? -1 : file.indexOf(line, cursor);
    if (at === -1) {
      if (!skip) misses++;
      if (last !== undefined && 'text' in last) last.text += line;
      else out.push({ text: line });
    } else if (continues) {
      last.slice[1] = offsets.at(at + line.length);
      cursor = at + line.length;
    } else {
      out.push({ slice: [offsets.at(at), offsets.at(at + line.length)] });
      cursor = at + line.length;
    }
    start = end;
  }
  return cursor;
}

/** A code body, the tail of its file, as a slice of it. */
export function bodySlice(file: string, body: string): { slice: [number, number] } {
  const size = Buffer.byteLength(file, 'utf8');
  return { slice: [size - Buffer.byteLength(body, 'utf8'), size] };
}

/** UTF-8 byte offsets of UTF-16 offsets into one text, counted forward from the last one asked (offsets come in order). */
class ByteOffsets {
  private readonly ascii: boolean;
  private index = 0;
  private bytes = 0;

  constructor(private readonly text: string) {
    this.ascii = Buffer.byteLength(text, 'utf8') === text.length;
  }

  at(offset: number): number {
    if (this.ascii) return offset;
    if (offset < this.index) {
      this.index = 0;
      this.bytes = 0;
    }
    this.bytes += Buffer.byteLength(this.text.slice(this.index, offset), 'utf8');
    this.index = offset;
    return this.bytes;
  }
}
