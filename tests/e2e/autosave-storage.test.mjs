// Autosave's storage rules (www/notebook/persistence.js) over an in-memory store: a saved notebook
// the page cannot read is moved aside, never overwritten by the starter; opening share links one
// after another keeps the reader's own notebook in the backups; the history is bounded. Limits on
// what a link or a file may expand to (www/notebook/share.js, format.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Autosave, MAX_BACKUPS } from '../../www/notebook/persistence.js';
import { makeRecord, RecordError } from '../../www/notebook/migrate.js';
import { MAX_SHARE_CELLS, ShareError, validatePayload } from '../../www/notebook/share.js';
import { MAX_NOTEBOOK_CELLS, NotebookFormatError, fromFile } from '../../www/notebook/format.js';

/** An Autosave whose IndexedDB is a Map (the storage calls are its get/put methods). */
function memoryAutosave() {
  const store = new Map();
  const autosave = new Autosave({ onError: (error) => assert.fail(error), onSaved: () => {} });
  autosave.database = {};
  autosave.get = async (key) => structuredClone(store.get(key));
  autosave.put = async (key, value) => void store.set(key, structuredClone(value));
  return { autosave, store };
}

const cells = (text) => [{ kind: 'code', source: text }];

test('a saved notebook the page cannot read is moved aside before the starter is saved', async () => {
  const { autosave, store } = memoryAutosave();
  const newer = { format: 99, savedAt: '2030-01-01T00:00:00.000Z', cells: [{ kind: 'code', source: 'mine', extra: 1 }] };
  store.set('current', newer);
  await assert.rejects(autosave.load(), (error) => error instanceof RecordError && error.code === 'newer');
  autosave.schedule(() => cells('starter'));
  await autosave.flush();
  const aside = [...store.keys()].filter((key) => key.startsWith('unreadable:'));
  assert.equal(aside.length, 1);
  assert.deepEqual(store.get(aside[0]), newer, 'kept byte for byte');
  assert.equal(store.get('current').cells[0].source, 'starter');
  // Later saves do not move anything else aside.
  autosave.schedule(() => cells('edited'));
  await autosave.flush();
  assert.equal([...store.keys()].filter((key) => key.startsWith('unreadable:')).length, 1);
});

test('a saved notebook with more cells than the limit is set aside, not rendered', async () => {
  const { autosave, store } = memoryAutosave();
  store.set('current', makeRecord(Array.from({ length: MAX_NOTEBOOK_CELLS + 1 }, () => ({ kind: 'code', source: '' }))));
  await assert.rejects(autosave.load(), (error) => error instanceof NotebookFormatError && error.code === 'too-many-cells');
  autosave.schedule(() => cells('starter'));
  await autosave.flush();
  assert.equal([...store.keys()].filter((key) => key.startsWith('unreadable:')).length, 1);
});

test('opening two share links in a row keeps the reader\'s notebook as the backup', async () => {
  const { autosave, store } = memoryAutosave();
  store.set('current', makeRecord(cells('my own work')));
  for (const link of ['link one', 'link two', 'link three']) {
    await autosave.backupCurrent();
    autosave.schedule(() => cells(link));
    await autosave.flush({ origin: 'link' });
  }
  assert.deepEqual(await autosave.loadBackup(), [{ kind: 'code', source: 'my own work', collapsed: false }]);
  assert.equal((await autosave.backups()).length, 1);
  // An edited link notebook is the reader's work now: it is kept too, newest first.
  autosave.schedule(() => cells('link three, edited'));
  await autosave.flush();
  await autosave.backupCurrent();
  const sources = (await autosave.backups()).map((record) => record.cells[0].source);
  assert.deepEqual(sources, ['link three, edited', 'my own work']);
});

test('the backup history is bounded and reads the single slot of older pages', async () => {
  const { autosave, store } = memoryAutosave();
  store.set('backup', makeRecord(cells('from an older page')));
  assert.equal((await autosave.loadBackup())[0].source, 'from an older page');
  for (let index = 0; index < MAX_BACKUPS + 3; index += 1) {
    store.set('current', makeRecord(cells(`version ${index}`)));
    await autosave.backupCurrent();
  }
  const list = await autosave.backups();
  assert.equal(list.length, MAX_BACKUPS);
  assert.equal(list[0].cells[0].source, `version ${MAX_BACKUPS + 2}`);
});

test('a link or a file may not expand to more cells than the limit', () => {
  const many = { v: 1, cells: Array.from({ length: MAX_SHARE_CELLS + 1 }, () => ['c', '']) };
  assert.throws(() => validatePayload(many), (error) => error instanceof ShareError && error.code === 'too-large');
  assert.equal(validatePayload({ v: 1, cells: many.cells.slice(1) }).length, MAX_SHARE_CELLS);
  const text = Array.from({ length: MAX_NOTEBOOK_CELLS + 1 }, (_, index) => `# %%\nx = ${index}`).join('\n');
  assert.throws(() => fromFile('big.py', text), (error) => error instanceof NotebookFormatError && error.code === 'too-many-cells');
  assert.equal(fromFile('ok.py', '# %%\nx = 1\n# %%\ny = 2\n').cells.length, 2);
});
