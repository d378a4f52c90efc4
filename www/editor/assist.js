// API discovery in the editor, from the engine's API table (editor/api.js): completion of pypto
// names after `pt.`/`pypto.` and of keyword arguments inside a call, hover docs, and signature
// help (the signature of the call around the caret, its current parameter marked).
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { pythonLanguage } from '@codemirror/lang-python';
import { StateField } from '@codemirror/state';
import { hoverTooltip, keymap, showTooltip } from '@codemirror/view';
import { t } from '../i18n/index.js';
import { apiDoc, apiEntry, apiMembers, hasApiTable, importedNames, resolvePath } from './api.js';

/** How far back the caret's enclosing call is looked for, in characters. */
const LOOKBACK = 2000;

/**
 * The call whose parentheses hold `position`: { name (as written), argument (0-based index),
 * keyword (the `name=` being written, if any), open (offset of '(') } or null.
 */
export function enclosingCall(text, position) {
  const start = Math.max(0, position - LOOKBACK);
  let depth = 0;
  let commas = 0;
  for (let index = position - 1; index >= start; index -= 1) {
    const char = text[index];
    if (char === ')' || char === ']' || char === '}') depth += 1;
    else if ((char === '[' || char === '{') && depth > 0) depth -= 1;
    else if (char === '[' || char === '{') commas = 0; // inside a list argument: its commas are not the call's
    else if (char === '(' && depth > 0) depth -= 1;
    else if (char === '(') {
      const name = /([A-Za-z_][\w.]*)\s*$/.exec(text.slice(Math.max(0, index - 200), index))?.[1];
      if (!name) return null;
      const current = text.slice(index + 1, position).split(',').pop();
      const keyword = /^\s*(\w+)\s*=(?!=)/.exec(current)?.[1] ?? null;
      return { name, argument: commas, keyword, open: index };
    } else if (char === ',' && depth === 0) commas += 1;
    else if (char === '\n' && depth === 0 && /^\s*(def|class|if|for|while|return)\b/.test(text.slice(index + 1, position))) return null;
  }
  return null;
}

function kindLabel(entry) {
  return t(`completion.${entry.kind}`);
}

/** A completion option for an entry (`apply` adds `(` for functions is left to the reader). */
function option(entry) {
  const type = { function: 'function', module: 'namespace', constant: 'constant', attribute: 'property' }[entry.kind] ?? 'variable';
  return { label: entry.name.split('.').pop(), type, detail: entry.kind === 'function' ? entry.signature.slice(entry.signature.indexOf('(')) : kindLabel(entry), info: () => docNode(entry) };
}

/** The completion source: members after a dotted API path, keyword arguments inside a call. */
export function apiCompletions(context) {
  if (!hasApiTable()) return null;
  const dotted = context.matchBefore(/[A-Za-z_][\w]*(\.[\w]*)+$/);
  if (dotted) {
    const path = dotted.text.slice(0, dotted.text.lastIndexOf('.'));
    const parent = resolvePath(path);
    const members = parent ? apiMembers(parent) : [];
    if (members.length === 0) return null;
    return { from: dotted.from + path.length + 1, options: members.map(option), validFor: /^\w*$/ };
  }
  const word = context.matchBefore(/\w*$/);
  const text = context.state.doc.toString();
  const call = enclosingCall(text, context.pos);
  const entry = call ? apiEntry(resolvePath(call.name) ?? '') : null;
  if (!entry || entry.kind !== 'function' || call.keyword) return null;
  if (!context.explicit && word.from === word.to) return null;
  const given = new Set([...text.slice(call.open, context.pos).matchAll(/(\w+)\s*=(?!=)/g)].map((match) => match[1]));
  const options = entry.parameters
    .filter((parameter) => !parameter.variadic && !given.has(parameter.name))
    .map((parameter) => ({ label: `${parameter.name}=`, type: 'property', detail: parameter.default ? `= ${parameter.default}` : t('completion.keyword'), boost: 1 }));
  return options.length > 0 ? { from: word.from, options, validFor: /^\w*$/ } : null;
}

/** The doc of an entry as DOM: its signature (or name) in code, then the text. */
function docNode(entry, active = null) {
  const box = document.createElement('div');
  box.className = 'cm-api-doc';
  box.append(signatureNode(entry, active));
  const doc = document.createElement('p');
  doc.textContent = apiDoc(entry);
  box.append(doc);
  return box;
}

/** `view(x, shape, …)` with parameter `active` (an index) emphasised. */
function signatureNode(entry, active) {
  const code = document.createElement('code');
  if (entry.kind !== 'function') {
    code.textContent = entry.name;
    return code;
  }
  code.append(`${entry.name.slice(0, entry.name.lastIndexOf('.') + 1)}${entry.signature.slice(0, entry.signature.indexOf('(') + 1)}`);
  entry.parameters.forEach((parameter, index) => {
    if (index > 0) code.append(', ');
    const part = document.createElement('span');
    part.textContent = `${parameter.variadic ? '*' : ''}${parameter.name}${parameter.default ? `=${parameter.default}` : ''}`;
    if (index === active) part.className = 'active-parameter';
    code.append(part);
  });
  code.append(')');
  return code;
}

/** Hover docs for any API name under the pointer (`pt.view`, `pypto.nn.layer_norm`, `help`). */
export const apiHover = hoverTooltip((view, position) => {
  if (!hasApiTable()) return null;
  const line = view.state.doc.lineAt(position);
  const column = position - line.from;
  const left = /[\w.]*$/.exec(line.text.slice(0, column))[0];
  const right = /^\w*/.exec(line.text.slice(column))[0];
  const path = (left + right).replace(/^\.+|\.+$/g, '');
  if (!path) return null;
  const entry = apiEntry(resolvePath(path) ?? '');
  if (!entry) return null;
  return { pos: position - left.length, end: position + right.length, above: true, create: () => ({ dom: docNode(entry) }) };
});

/** Which parameter the caret is on: by keyword, else by position (the `*args` one absorbs the rest). */
function activeParameter(entry, call) {
  if (call.keyword) return entry.parameters.findIndex((parameter) => parameter.name === call.keyword);
  const variadic = entry.parameters.findIndex((parameter) => parameter.variadic);
  if (variadic >= 0 && call.argument >= variadic) return variadic;
  return call.argument < entry.parameters.length ? call.argument : -1;
}

function signatureTooltip(state) {
  if (!hasApiTable() || !state.selection.main.empty) return null;
  const position = state.selection.main.head;
  const call = enclosingCall(state.doc.sliceString(Math.max(0, position - LOOKBACK), position), Math.min(position, LOOKBACK));
  if (!call) return null;
  const entry = apiEntry(resolvePath(call.name, importedNames()) ?? '');
  if (!entry || entry.kind !== 'function') return null;
  const active = activeParameter(entry, call);
  return {
    pos: position,
    above: true,
    strictSide: true,
    create: () => {
      const dom = document.createElement('div');
      dom.className = 'cm-signature';
      dom.setAttribute('role', 'status');
      dom.append(signatureNode(entry, active));
      return { dom };
    },
  };
}

/** Signature help: a tooltip above the caret while it is inside a call of a pypto function. */
const signatureHelp = StateField.define({
  create: signatureTooltip,
  update(value, transaction) {
    return transaction.docChanged || transaction.selection ? signatureTooltip(transaction.state) : value;
  },
  provide: (field) => showTooltip.from(field),
});

/** The extensions of a code editor: completion, brackets closed as typed, hover, signature help. */
export function apiAssist() {
  return [
    // Added to the Python language's own completions (local names), not replacing them.
    pythonLanguage.data.of({ autocomplete: apiCompletions }),
    autocompletion({ icons: false }),
    closeBrackets(),
    keymap.of([...closeBracketsKeymap, ...completionKeymap]),
    apiHover,
    signatureHelp,
  ];
}
