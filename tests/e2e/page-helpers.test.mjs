// Pure helpers of the page: byte spans → editor positions, autosave migrations, share links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byteOffsetsToIndices, spanToRange } from '../../www/editor/spans.js';
import { migrate, makeRecord, RecordError, FORMAT_VERSION } from '../../www/notebook/migrate.js';
import { decodeNotebook, encodeNotebook, sharedPayload, ShareError, MAX_SHARE_CHARS } from '../../www/notebook/share.js';

test('UTF-8 byte offsets map to UTF-16 indices', () => {
  // "aπ😀b": a = 1 byte/1 unit, π = 2 bytes/1 unit, 😀 = 4 bytes/2 units, b = 1 byte/1 unit.
  // Byte starts: a 0, π 1, 😀 3, b 7, end 8. Unit starts: a 0, π 1, 😀 2, b 4, end 5.
  const text = 'aπ😀b';
  assert.deepEqual(byteOffsetsToIndices(text, [0, 1, 3, 7, 8]), [0, 1, 2, 4, 5]);
  // Offsets inside a character snap to its start; past the end clamp.
  assert.deepEqual(byteOffsetsToIndices(text, [2, 5, 99]), [1, 2, 5]);
  assert.deepEqual(spanToRange(text, { start: 3, end: 7 }), { from: 2, to: 4 });
  // An empty span underlines one character: the one at it, or the last one at the end.
  assert.deepEqual(spanToRange('x = ', { start: 2, end: 2 }), { from: 2, to: 3 });
  assert.deepEqual(spanToRange('x = ', { start: 4, end: 4 }), { from: 3, to: 4 });
});

test('autosave records of the current format pass; newer or malformed ones are refused', () => {
  const record = makeRecord([{ kind: 'code', source: 'a', collapsed: true }], new Date(0));
  assert.deepEqual(migrate(record), { format: FORMAT_VERSION, savedAt: '1970-01-01T00:00:00.000Z', cells: [{ kind: 'code', source: 'a', collapsed: true }] });
  assert.throws(() => migrate({ format: FORMAT_VERSION + 1, cells: [] }), (error) => error instanceof RecordError && error.code === 'newer');
  assert.throws(() => migrate({ cells: [] }), /no format version/);
  assert.throws(() => migrate({ format: FORMAT_VERSION, cells: [{ kind: 'widget', source: '' }] }), /cell 0/);
});

test('migrations run one format at a time up to the current one', () => {
  // A made-up history: format 1 stored {text, type}, format 2 renamed them to {source, kind}, format 3 is current.
  const migrations = {
    1: (record) => ({ cells: record.cells.map((cell) => ({ kind: cell.type, source: cell.text })) }),
    2: (record) => ({ cells: record.cells.map((cell) => ({ ...cell, source: cell.source.trim() })) }),
  };
  const old = { format: 1, cells: [{ type: 'code', text: ' x ' }] };
  assert.deepEqual(migrate(old, migrations, 3).cells, [{ kind: 'code', source: 'x', collapsed: false }]);
  assert.throws(() => migrate({ format: 0, cells: [] }, migrations, 3), /no migration from format 0/);
});

test('a share link round-trips and is small for text', async () => {
  const cells = [{ kind: 'markdown', source: '# 标题' }, { kind: 'code', source: 'x = 1\n'.repeat(200) }];
  const encoded = await encodeNotebook(cells);
  assert.match(encoded, /^[A-Za-z0-9_-]+$/);
  assert.ok(encoded.length < 200, `repetitive text compresses (${encoded.length} chars)`);
  assert.deepEqual(await decodeNotebook(encoded), cells);
  assert.equal(sharedPayload(`#nb=${encoded}`), encoded);
  assert.equal(sharedPayload('#other'), null);
});

test('malformed or oversized share links are ShareErrors', async () => {
  const reject = (promise, code) => assert.rejects(promise, (error) => error instanceof ShareError && error.code === code);
  await reject(decodeNotebook('not base64!'), 'malformed');
  await reject(decodeNotebook('AAAA'), 'malformed');
  await reject(decodeNotebook('x'.repeat(MAX_SHARE_CHARS + 1)), 'too-large');
  // Valid deflate of JSON that is not a notebook.
  const notNotebook = await deflateText('{"v":1,"cells":[["x","y"]]}');
  await reject(decodeNotebook(notNotebook), 'malformed');
  // Pseudo-random text (a 32-bit LCG) barely compresses, so 120 000 characters exceed the 64 KiB cap.
  let state = 12345;
  const random = Array.from({ length: 120_000 }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return String.fromCharCode(33 + (state >>> 24) % 90);
  }).join('');
  await reject(encodeNotebook([{ kind: 'code', source: random }]), 'too-large');
});

/** Deflates text and base64url-encodes it, independently of the module under test. */
async function deflateText(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return Buffer.from(bytes).toString('base64url');
}
