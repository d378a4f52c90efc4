// Autosave in IndexedDB: one record under 'current' (the open notebook) and one under 'backup'
// (the notebook that a shared link replaced). Records are versioned (see migrate.js). A failed
// save (full storage …) is reported to `onError` and retried on the next change; the notebook in
// memory is never touched by a failure.
import { makeRecord, migrate } from './migrate.js';

const DATABASE = 'tilelab';
const STORE = 'notebooks';
const DELAY_MS = 300;

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

  /** The saved notebook's cells (migrated), null when there is none; throws RecordError. */
  async load() {
    const record = await this.get('current');
    return record === undefined ? null : migrate(record).cells;
  }

  /** The backup's cells (migrated), null when there is none. */
  async loadBackup() {
    const record = await this.get('backup');
    return record === undefined ? null : migrate(record).cells;
  }

  /** When the backup was saved (ISO text), or null when there is none. */
  async backupTime() {
    const record = await this.get('backup');
    return record?.savedAt ?? null;
  }

  /** Keeps the saved notebook as the backup (before a shared link replaces it). */
  async backupCurrent() {
    const record = await this.get('current');
    if (record !== undefined) await this.put('backup', record);
  }

  /** Saves `cells()` after a short pause; later calls within the pause fold into one save. */
  schedule(cells) {
    this.latest = cells;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DELAY_MS);
  }

  /** Saves now. */
  async flush() {
    clearTimeout(this.timer);
    if (!this.latest || !this.database) return;
    const record = makeRecord(this.latest());
    try {
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
