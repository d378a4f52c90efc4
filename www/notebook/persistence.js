// Autosave in IndexedDB: one record under 'current' (the open notebook) and a short history under
// 'backups' (the notebooks that shared links replaced, newest first). Records are versioned (see
// migrate.js). A failed save (full storage …) is reported to `onError` and retried on the next
// change; the notebook in memory is never touched by a failure. A saved notebook this page cannot
// read (a newer format, a damaged cell) is moved aside under 'unreadable:<time>' before anything
// is written over it, so a newer page can still open it.
import { makeRecord, migrate } from './migrate.js';
import { checkCellCount } from './format.js';

const DATABASE = 'tilelab';
const STORE = 'notebooks';
const DELAY_MS = 300;
/** How many replaced notebooks are kept. */
export const MAX_BACKUPS = 5;

function promised(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function openDatabase() {
  const request = indexedDB.open(DATABASE, 1);
  request.onupgradeneeded = () => {
    if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE);
  };
  return promised(request);
}

export class Autosave {
  constructor({ onError, onSaved }) {
    this.onError = onError;
    this.onSaved = onSaved;
    this.database = null;
    this.timer = null;
    this.latest = null;
    /** The stored record `load` could not read, until it is moved aside. */
    this.unreadable = null;
    /** Whether a change waits for its save. */
    this.pending = false;
  }

  async open() {
    this.database = await openDatabase();
  }

  async get(key) {
    const transaction = this.database.transaction(STORE, 'readonly');
    return promised(transaction.objectStore(STORE).get(key));
  }

  async put(key, value) {
    const transaction = this.database.transaction(STORE, 'readwrite');
    transaction.objectStore(STORE).put(value, key);
    await new Promise((resolve, reject) => {
      transaction.oncomplete = resolve;
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error ?? new DOMException('the save was aborted', 'AbortError'));
    });
  }

  /**
   * The saved notebook's cells (migrated), null when there is none; throws RecordError, and then
   * remembers the record so the first save moves it aside instead of overwriting it.
   */
  async load() {
    const record = await this.get('current');
    if (record === undefined) return null;
    try {
      // A notebook saved before the cell limit (from a link of 20,000 empty cells) would freeze
      // every reload: it is set aside like an unreadable one.
      return checkCellCount(migrate(record).cells);
    } catch (error) {
      this.unreadable = record;
      throw error;
    }
  }

  /** The replaced notebooks, newest first (raw records; the single slot of older pages included). */
  async backups() {
    const list = await this.get('backups');
    if (Array.isArray(list)) return list;
    const single = await this.get('backup');
    return single === undefined ? [] : [single];
  }

  /** The newest backup's cells (migrated), null when there is none. */
  async loadBackup() {
    const [newest] = await this.backups();
    return newest === undefined ? null : migrate(newest).cells;
  }

  /** When the backup was saved (ISO text), or null when there is none. */
  async backupTime() {
    const record = await this.get('backup');
    return record?.savedAt ?? null;
  }

  /**
   * Keeps the saved notebook in the backup history (before a shared link replaces it). A notebook
   * that came from a link and was not edited is not kept (its link still has it), so opening
   * links one after another never pushes the reader's own notebook out of the history.
   */
  async backupCurrent() {
    // Unsaved edits first (a save now would also drop the link mark of an unedited notebook).
    if (this.pending) await this.flush();
    const record = await this.get('current');
    if (record === undefined || record.origin === 'link') return;
    const list = await this.backups();
    if (list[0] && JSON.stringify(list[0].cells) === JSON.stringify(record.cells)) return;
    await this.put('backups', [record, ...list].slice(0, MAX_BACKUPS));
    // The newest also under 'backup', the one slot that pages before the history read.
    await this.put('backup', record);
  }

  /** Saves `cells()` after a short pause; later calls within the pause fold into one save. */
  schedule(cells) {
    this.latest = cells;
    this.pending = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DELAY_MS);
  }

  /** Saves now; `origin: 'link'` marks a notebook just opened from a share link. */
  async flush({ origin = null } = {}) {
    clearTimeout(this.timer);
    if (!this.latest || !this.database) return;
    const record = makeRecord(this.latest());
    if (origin) record.origin = origin;
    this.pending = false;
    try {
      if (this.unreadable !== null) {
        await this.put(`unreadable:${new Date().toISOString()}`, this.unreadable);
        this.unreadable = null;
      }
      await this.put('current', record);
      this.onSaved?.();
    } catch (error) {
      this.onError(error);
    }
  }
}

/** Whether a storage error means the browser's quota is used up. */
export function isQuotaError(error) {
  return error?.name === 'QuotaExceededError' || error?.code === 22;
}
