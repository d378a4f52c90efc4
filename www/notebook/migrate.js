// The autosave record's format and its migrations. A record is
// { format: FORMAT_VERSION, savedAt: ISO text, cells: [{ kind, source, collapsed, output? }] }
// (`output`: the cell's last run result, optional, so pages that do not know it still read the
// record); a record of an older
// format is carried forward one version at a time by MIGRATIONS[from] (none yet: format 1 is the first).

/** The autosave format this page writes. */
export const FORMAT_VERSION = 1;

/** `MIGRATIONS[n]` turns a format-n record into a format-(n+1) record. */
export const MIGRATIONS = {};

/** Why a stored record cannot be used; the stored record is then left untouched. */
export class RecordError extends Error {
  constructor(code, detail) {
    super(detail);
    this.name = 'RecordError';
    this.code = code;
  }
}

/** Brings a stored record to FORMAT_VERSION and checks its shape; throws RecordError otherwise. */
export function migrate(record, migrations = MIGRATIONS, current = FORMAT_VERSION) {
  if (record === null || typeof record !== 'object' || !Number.isInteger(record.format)) {
    throw new RecordError('malformed', 'the saved notebook has no format version');
  }
  if (record.format > current) {
    throw new RecordError('newer', `the saved notebook has format ${record.format}; this page reads up to ${current}`);
  }
  let upgraded = record;
  while (upgraded.format < current) {
    const step = migrations[upgraded.format];
    if (!step) throw new RecordError('malformed', `no migration from format ${upgraded.format}`);
    upgraded = { ...step(upgraded), format: upgraded.format + 1 };
  }
  if (!Array.isArray(upgraded.cells)) throw new RecordError('malformed', 'the saved notebook has no cells');
  const cells = upgraded.cells.map((cell, index) => {
    if ((cell?.kind !== 'code' && cell?.kind !== 'markdown') || typeof cell.source !== 'string') {
      throw new RecordError('malformed', `saved cell ${index} is malformed`);
    }
    const kept = { kind: cell.kind, source: cell.source, collapsed: cell.collapsed === true };
    return cell.output && typeof cell.output === 'object' ? { ...kept, output: cell.output } : kept;
  });
  return { ...upgraded, cells };
}

/** The record to store for the given cells. */
export function makeRecord(cells, now = new Date()) {
  return {
    format: FORMAT_VERSION,
    savedAt: now.toISOString(),
    cells: cells.map((cell) => ({ kind: cell.kind, source: cell.source, collapsed: cell.collapsed === true, ...(cell.output ? { output: cell.output } : {}) })),
  };
}
