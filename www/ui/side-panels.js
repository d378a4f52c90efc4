// The side panels beside the cells: the variables of the session (names, types, shapes, dtypes,
// whether they require grad; refreshed after every run) and the outline of the markdown headings
// (a click selects the heading's cell). Also the toolbar's "Stop on error" switch (remembered).
import { onLocaleChange, t } from '../i18n/index.js';
import { button, element } from './dom.js';

const STOP_ON_ERROR_KEY = 'tilelab.stopOnError';

/** Wires the "Stop on error" checkbox to the runner; on unless the reader turned it off. */
export function initStopOnError(checkbox, runner) {
  let stored = null;
  try {
    stored = localStorage.getItem(STOP_ON_ERROR_KEY);
  } catch {
    // Storage disabled: the default holds.
  }
  checkbox.checked = stored !== 'false';
  runner.stopOnError = checkbox.checked;
  checkbox.addEventListener('change', () => {
    runner.stopOnError = checkbox.checked;
    try {
      localStorage.setItem(STOP_ON_ERROR_KEY, String(checkbox.checked));
    } catch {
      // Not remembered; still applies to this page.
    }
  });
}

/** The variables table (or a note when there are none). */
function variablesContent(variables) {
  const heading = element('h2', null, t('variables.title'));
  if (variables.length === 0) return [heading, element('p', 'muted', t('variables.empty'))];
  const table = element('table', 'variables-table');
  const head = element('tr');
  for (const key of ['name', 'type', 'shape', 'dtype', 'grad']) head.append(element('th', null, t(`variables.${key}`)));
  table.append(head);
  for (const variable of variables) {
    const row = element('tr');
    row.dataset.name = variable.name;
    const isTensor = variable.kind === 'Tensor';
    const shape = isTensor ? `[${variable.shape.join(', ')}]` : variable.preview || (variable.cell ? t('variables.definedIn', { cell: variable.cell }) : '');
    const grad = isTensor ? element('td', variable.requires_grad ? 'grad-yes' : null, t(variable.requires_grad ? 'variables.yes' : 'variables.no')) : element('td', null, '');
    const shapeCell = element('td', 'variable-value', shape);
    if (!isTensor) shapeCell.colSpan = 2;
    row.append(element('td', 'variable-name', variable.name), element('td', null, variable.kind), shapeCell);
    if (isTensor) row.append(element('td', null, variable.dtype));
    row.append(grad);
    table.append(row);
  }
  return [heading, table];
}

/** The markdown headings of the notebook: [{ id, level, text }]. */
export function headingsOf(cells) {
  const headings = [];
  for (const cell of cells) {
    if (cell.kind !== 'markdown') continue;
    let fenced = false;
    for (const line of cell.source.split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
      const match = fenced ? null : /^(#{1,4})\s+(.+?)\s*#*\s*$/.exec(line);
      if (match) headings.push({ id: cell.id, level: match[1].length, text: match[2].replaceAll('`', '') });
    }
  }
  return headings;
}

function outlineContent(cells, controller) {
  const heading = element('h2', null, t('outline.title'));
  const headings = headingsOf(cells);
  if (headings.length === 0) return [heading, element('p', 'muted', t('outline.empty'))];
  const list = element('ul', 'outline-list');
  for (const entry of headings) {
    const item = element('li', `level-${entry.level}`);
    item.append(button(null, entry.text, () => controller.focus(entry.id)));
    list.append(item);
  }
  return [heading, list];
}

/** Wires the two panels and their toolbar toggles (each remembered as open or closed). */
export function initSidePanels({ model, engine, runner, controller, variablesToggle, outlineToggle, variables, outline }) {
  let lastVariables = [];
  const refreshVariables = async () => {
    if (variables.hidden) return;
    try {
      lastVariables = (await engine.variables()) ?? [];
    } catch {
      return; // The engine restarted: the next run refreshes.
    }
    variables.replaceChildren(...variablesContent(lastVariables));
  };
  const refreshOutline = () => {
    if (!outline.hidden) outline.replaceChildren(...outlineContent(model.cells, controller));
  };
  const layout = () => document.body.classList.toggle('panels-open', !variables.hidden || !outline.hidden);
  const toggle = (button, panel, refresh) => {
    button.addEventListener('click', () => {
      panel.hidden = !panel.hidden;
      button.setAttribute('aria-expanded', String(!panel.hidden));
      layout();
      refresh();
    });
  };
  toggle(variablesToggle, variables, refreshVariables);
  toggle(outlineToggle, outline, refreshOutline);
  runner.addEventListener('finished', refreshVariables);
  engine.addEventListener('restart', () => {
    lastVariables = [];
    if (!variables.hidden) variables.replaceChildren(...variablesContent([]));
  });
  model.addEventListener('change', (event) => {
    if (event.detail.what !== 'run') refreshOutline();
  });
  onLocaleChange(() => {
    if (!variables.hidden) variables.replaceChildren(...variablesContent(lastVariables));
    refreshOutline();
  });
}
