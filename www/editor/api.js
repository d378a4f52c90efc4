// The API table the engine exports (the same table its interpreter resolves `pypto.*` through):
// kept here for the editor's completion, hover docs and signature help. Names in a cell are
// resolved through the notebook's imports (`import pypto as pt` makes `pt.view` `pypto.view`).
import { locale } from '../i18n/index.js';

let byName = new Map();
let notebookText = () => '';

/** Stores the table ([{ name, kind, parameters, signature, doc_en, doc_zh }]). */
export function setApiTable(entries) {
  byName = new Map((entries ?? []).map((entry) => [entry.name, entry]));
}

/** Whether the table arrived. */
export function hasApiTable() {
  return byName.size > 0;
}

/** Where the imports are read from: `read()` returns the text of every code cell. */
export function setNotebookText(read) {
  notebookText = read;
}

/** The entry of a qualified name. */
export function apiEntry(name) {
  return byName.get(name);
}

/** The doc of an entry in the UI language. */
export function apiDoc(entry) {
  return locale() === 'zh-CN' ? entry.doc_zh : entry.doc_en;
}

/** The entries directly inside `parent` (`pypto` → `pypto.view`, `pypto.nn`; not deeper). */
export function apiMembers(parent) {
  const prefix = `${parent}.`;
  return [...byName.values()].filter((entry) => entry.name.startsWith(prefix) && !entry.name.slice(prefix.length).includes('.'));
}

/**
 * The local names the notebook's imports bind to API names: `import pypto` → pypto,
 * `import pypto as pt` → pt, `from pypto import nn` → nn (pypto.nn), `import torch` → torch,
 * `import torch.nn.functional as F` → F. `pypto` itself always counts.
 */
export function importedNames(text = notebookText()) {
  const names = new Map([['pypto', 'pypto']]);
  for (const match of text.matchAll(/^\s*import\s+((?:pypto|torch)(?:\.\w+)*)(?:\s+as\s+(\w+))?\s*$/gm)) {
    const root = match[1].split('.')[0];
    names.set(match[2] ?? root, match[2] ? match[1] : root);
  }
  for (const match of text.matchAll(/^\s*from\s+(pypto(?:\.\w+)*)\s+import\s+([\w\s,]+?)\s*$/gm)) {
    for (const part of match[2].split(',')) {
      const [name, alias] = part.trim().split(/\s+as\s+/);
      if (name && byName.has(`${match[1]}.${name}`)) names.set(alias ?? name, `${match[1]}.${name}`);
    }
  }
  return names;
}

/** The qualified API name of a dotted path as written (`pt.nn.layer_norm`), or null. */
export function resolvePath(path, names = importedNames()) {
  const [head, ...rest] = path.split('.');
  if (byName.has(head) && rest.length === 0 && !names.has(head)) return head; // help, dir
  const base = names.get(head);
  if (!base) return null;
  return [base, ...rest].join('.');
}
