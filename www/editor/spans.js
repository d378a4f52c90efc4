// The engine reports spans in UTF-8 bytes of a cell's source; the editor counts UTF-16 code units.

/** UTF-8 length of one code point. */
function utf8Length(codePoint) {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/**
 * Maps byte offsets of `text` (UTF-8) to string indices (UTF-16). Offsets inside a character snap
 * to its start; offsets past the end clamp to `text.length`. Returns one index per offset, in order.
 */
export function byteOffsetsToIndices(text, offsets) {
  const wanted = offsets.map((offset, order) => ({ offset: Math.max(0, offset), order })).sort((a, b) => a.offset - b.offset);
  const result = new Array(offsets.length).fill(text.length);
  let bytes = 0;
  let index = 0;
  let next = 0;
  while (next < wanted.length && index < text.length) {
    const codePoint = text.codePointAt(index);
    const width = utf8Length(codePoint);
    while (next < wanted.length && wanted[next].offset < bytes + width) {
      result[wanted[next].order] = index;
      next += 1;
    }
    bytes += width;
    index += codePoint > 0xffff ? 2 : 1;
  }
  return result;
}

/** A byte span `{start, end}` of `text` as editor positions `{from, to}` (never empty when the text is not). */
export function spanToRange(text, span) {
  const [from, to] = byteOffsetsToIndices(text, [span.start, span.end]);
  if (to > from) return { from, to };
  // An empty span (e.g. "expected an expression" at the end) underlines the character before it.
  return from < text.length ? { from, to: from + 1 } : { from: Math.max(0, text.length - 1), to: text.length };
}
