// Share links: the notebook's cells, deflated (CompressionStream 'deflate-raw') and base64url-encoded
// in the URL fragment `#nb=…`. Fragments never reach a server. Opening a link loads, never runs.
// Optionally the link carries the cells' kept outputs too (in their nbformat form, read back with
// the same checks as an opened .ipynb), as many as fit in the link: the largest are dropped first.
import { outputsFromIpynb, outputsToIpynb } from './ipynb-outputs.js';

/** Largest encoded notebook accepted in a link (characters after `#nb=`). */
export const MAX_SHARE_CHARS = 64 * 1024;
/** Largest inflated payload accepted, so a tiny link cannot expand into gigabytes. */
export const MAX_SHARE_BYTES = 4 << 20;
/** Most cells a link may hold (a 527-character link can hold 20,000 empty cells). */
export const MAX_SHARE_CELLS = 1000;
/** Version of the shared payload's shape. */
const SHARE_VERSION = 1;

/** A share link that cannot be opened; `code` selects the translated message. */
export class ShareError extends Error {
  constructor(code, detail) {
    super(detail);
    this.name = 'ShareError';
    this.code = code;
  }
}

function toBase64Url(bytes) {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  }
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ShareError('malformed', 'the link has characters outside base64url');
  const padded = text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4);
  let binary;
  try {
    binary = atob(padded);
  } catch {
    throw new ShareError('malformed', 'the link is not base64url');
  }
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

async function pipe(bytes, transform) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  const reader = stream.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_SHARE_BYTES) {
      await reader.cancel();
      throw new ShareError('too-large', `the shared notebook inflates past ${MAX_SHARE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

async function encodePayload(payload) {
  const deflated = await pipe(new TextEncoder().encode(JSON.stringify(payload)), new CompressionStream('deflate-raw'));
  return toBase64Url(deflated);
}

function cellPairs(cells) {
  return cells.map((cell) => [cell.kind === 'markdown' ? 'm' : 'c', cell.source]);
}

/** The fragment payload for a notebook's cells (without `#nb=`); throws `too-large` past the cap. */
export async function encodeNotebook(cells) {
  const encoded = await encodePayload({ v: SHARE_VERSION, cells: cellPairs(cells) });
  if (encoded.length > MAX_SHARE_CHARS) {
    throw new ShareError('too-large', `the link would be ${encoded.length} characters; the limit is ${MAX_SHARE_CHARS}`);
  }
  return encoded;
}

/**
 * The fragment payload with the cells' kept outputs (`cell.output`), as many as fit in
 * `limit` characters, dropping the largest first. Returns { encoded, included, dropped } (counts
 * of outputs); throws `too-large` when even the cells alone do not fit.
 */
export async function encodeNotebookWithOutputs(cells, limit = MAX_SHARE_CHARS) {
  const outputs = [];
  cells.forEach((cell, index) => {
    if (cell.kind !== 'code' || !cell.output) return;
    const kept = outputsToIpynb(cell.output);
    if (kept.outputs.length > 0 || kept.metadata.tilelab) outputs.push([index, kept]);
  });
  // Largest last, so dropping from the end drops the largest first.
  const sized = outputs.map((entry) => ({ entry, size: JSON.stringify(entry).length })).sort((a, b) => a.size - b.size);
  const total = sized.length;
  for (;;) {
    const kept = sized.map((item) => item.entry).sort((a, b) => a[0] - b[0]);
    const payload = kept.length > 0 ? { v: SHARE_VERSION, cells: cellPairs(cells), outputs: kept } : { v: SHARE_VERSION, cells: cellPairs(cells) };
    const encoded = await encodePayload(payload);
    if (encoded.length <= limit) return { encoded, included: kept.length, dropped: total - kept.length };
    if (sized.length === 0) throw new ShareError('too-large', `the link would be ${encoded.length} characters; the limit is ${limit}`);
    sized.pop();
  }
}

/** Checks the decoded JSON's shape and returns cells `{kind, source}`. */
export function validatePayload(payload) {
  if (payload === null || typeof payload !== 'object' || payload.v !== SHARE_VERSION || !Array.isArray(payload.cells)) {
    throw new ShareError('malformed', 'the link does not hold a TileLab notebook');
  }
  if (payload.cells.length > MAX_SHARE_CELLS) {
    throw new ShareError('too-large', `the link holds ${payload.cells.length} cells; the limit is ${MAX_SHARE_CELLS}`);
  }
  const cells = payload.cells.map((cell, index) => {
    if (!Array.isArray(cell) || cell.length !== 2 || (cell[0] !== 'c' && cell[0] !== 'm') || typeof cell[1] !== 'string') {
      throw new ShareError('malformed', `cell ${index} of the link is malformed`);
    }
    return { kind: cell[0] === 'm' ? 'markdown' : 'code', source: cell[1] };
  });
  if (payload.outputs !== undefined) {
    if (!Array.isArray(payload.outputs)) throw new ShareError('malformed', 'the outputs of the link are malformed');
    for (const entry of payload.outputs) {
      const [index, kept] = Array.isArray(entry) ? entry : [];
      if (!Number.isInteger(index) || cells[index]?.kind !== 'code' || kept === null || typeof kept !== 'object') {
        throw new ShareError('malformed', 'an output of the link is malformed');
      }
      const output = outputsFromIpynb(kept);
      if (output) cells[index].output = output;
    }
  }
  return cells;
}

/** Decodes a fragment payload (without `#nb=`) into cells; every failure is a `ShareError`. */
export async function decodeNotebook(encoded) {
  if (encoded.length > MAX_SHARE_CHARS) {
    throw new ShareError('too-large', `the link is ${encoded.length} characters; the limit is ${MAX_SHARE_CHARS}`);
  }
  const bytes = fromBase64Url(encoded);
  let inflated;
  try {
    inflated = await pipe(bytes, new DecompressionStream('deflate-raw'));
  } catch (error) {
    if (error instanceof ShareError) throw error;
    throw new ShareError('malformed', 'the link is damaged (it does not inflate)');
  }
  let payload;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(inflated));
  } catch {
    throw new ShareError('malformed', 'the link is damaged (its content is not JSON text)');
  }
  return validatePayload(payload);
}

/** The `nb` payload of a location hash (`#nb=…`), or null when there is none. */
export function sharedPayload(hash) {
  const match = /^#nb=(.*)$/s.exec(hash);
  return match ? match[1] : null;
}
