// The notebook page: wires the model, its view, the engine worker, autosave, files, share links,
// dialogs, theme and language. Views only render; the worker is the only module that imports pkg/.
import { initLocale, locale, onLocaleChange, setLocale, t } from './i18n/index.js';
import { mountNotebook } from './notebook/mount.js';
import { Autosave, isQuotaError } from './notebook/persistence.js';
import { openSharedLink, shareNotebook } from './notebook/share-flow.js';
import { refreshEditorPhrases } from './editor/setup.js';
import { hasApiTable, setApiTable, setNotebookText } from './editor/api.js';
import { dismissBanner, hasBanner, initBanners, showBanner } from './ui/banner.js';
import { openGallery, openHelp } from './ui/dialogs.js';
import { readNotebookFile, saveIpynb, savePy } from './ui/files.js';
import { listExamples } from './ui/gallery.js';
import { initTheme } from './ui/theme.js';
import { starterCells, starterLocale } from './notebook/starter.js';
import { initSidePanels, initStopOnError } from './ui/side-panels.js';

const $ = (id) => document.getElementById(id);

initLocale();
initTheme($('theme'));
initBanners($('banners'));

const languageSelect = /** @type {HTMLSelectElement} */ ($('language'));
languageSelect.value = locale();
languageSelect.addEventListener('change', () => setLocale(languageSelect.value));

// `?mode=read` shows the notebook for reading (`&run=0`: not even running); see ui/read-mode.js.
const query = new URLSearchParams(location.search);
const { announce, engine, model, runner, controller, view, stop } = mountNotebook({
  cells: $('cells'),
  announcer: $('announcer'),
  openHelp,
  mode: query.get('mode') === 'read' ? 'read' : 'edit',
  canRun: query.get('run') !== '0',
});

// Engine status badge.
const engineBadge = $('engine');
engine.addEventListener('status', /** @param {CustomEvent} event */ (event) => {
  engineBadge.dataset.state = event.detail;
  engineBadge.dataset.i18n = `engine.${event.detail}`;
  engineBadge.textContent = t(`engine.${event.detail}`);
  $('version').textContent = engine.version ? `v${engine.version}` : '';
});
engine.addEventListener('restart', /** @param {CustomEvent} event */ (event) => {
  model.markStale();
  if (event.detail.reason === 'stopped') announce(t('announce.stopped'));
  if (event.detail.reason === 'restarted') announce(t('announce.restarted'));
});
// help() texts follow the UI language, in every fresh session; the editor's API docs come from
// the engine's own table, asked for once.
setNotebookText(() => model.cells.filter((cell) => cell.kind === 'code').map((cell) => cell.source).join('\n'));
let preparedGeneration = 0;
engine.addEventListener('status', /** @param {CustomEvent} event */ (event) => {
  if (event.detail !== 'ready' || preparedGeneration === engine.generation) return;
  preparedGeneration = engine.generation;
  engine.setLanguage(locale()).catch(() => {});
  if (!hasApiTable()) engine.apiTable().then(setApiTable, () => {});
});
engine.addEventListener('crash', /** @param {CustomEvent} event */ (event) => {
  showBanner('crash', { key: 'banner.crashed', parameters: { message: event.detail.message } });
  announce(t('announce.crashed', { message: event.detail.message }));
});

runner.addEventListener('finished', /** @param {CustomEvent} event */ (event) => {
  const { id, run } = event.detail;
  const index = model.indexOf(id) + 1;
  if (run?.state === 'done') {
    announce(t('announce.finished', { index, ms: Math.round(run.ms) }));
  } else if (run && !run.stopped) {
    const first = run.result?.diagnostics?.find((diagnostic) => diagnostic.severity === 'error');
    const message = first?.message ?? (run.engineCode === 'unavailable' ? t('output.notInBuild') : run.engineError ?? '');
    announce(t('announce.failed', { index, message }));
  }
});

// Autosave: every text or structure change is saved shortly after; failures show a banner.
const exportNow = () => saveIpynb(model.snapshotWithOutputs());
const autosave = new Autosave({
  onError: (error) => {
    // Shown once per failure streak: re-showing it after every keystroke would re-alert screen readers.
    if (hasBanner('save')) return;
    const key = isQuotaError(error) ? 'banner.quota' : 'banner.saveFailed';
    showBanner('save', { key, parameters: { message: error?.message ?? String(error) }, actions: [{ label: 'banner.export', run: exportNow }] });
  },
  onSaved: () => {
    dismissBanner('save');
    document.body.dataset.saved = String(Date.now());
  },
});
// Saved with the outputs of finished runs, so a reload shows them before anything runs.
model.addEventListener('change', /** @param {CustomEvent} event */ (event) => {
  const cell = event.detail.what === 'run' ? model.get(event.detail.id) : null;
  if (cell && cell.run.state !== 'done' && cell.run.state !== 'error' && cell.run.state !== 'idle') return;
  autosave.schedule(() => model.snapshotWithOutputs());
});
addEventListener('pagehide', () => autosave.flush());
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') autosave.flush();
});

/** The text of the last example opened, as opened: an untouched example is not worth a backup. */
let openedExample = null;

/**
 * Opens an example: the notebook it replaces is kept as the backup (reopened from the gallery),
 * unless it is the untouched starter or an untouched example (which would push the reader's own
 * work out of the backup).
 */
async function openExample(example) {
  const current = JSON.stringify(model.snapshot());
  if (starterLocale(model.snapshot()) === null && model.cells.length > 0 && current !== openedExample) {
    await autosave.flush();
    await autosave.backupCurrent().catch(() => {});
  }
  replaceNotebook(example.cells());
  openedExample = JSON.stringify(model.snapshot());
  const restore = async () => {
    dismissBanner('example');
    const previous = await autosave.loadBackup().catch(() => null);
    if (previous) replaceNotebook(previous);
  };
  showBanner('example', { key: 'banner.exampleOpened', parameters: { title: example.title }, tone: 'info', actions: [{ label: 'banner.restore', run: restore }] });
}

/** The gallery's "reopen the replaced notebook" entry, when a backup exists. */
async function backupEntry() {
  const time = await autosave.backupTime().catch(() => null);
  if (!time) return null;
  return {
    time: new Date(time).toLocaleString(locale()),
    restore: async () => {
      const previous = await autosave.loadBackup().catch(() => null);
      if (previous) replaceNotebook(previous);
    },
  };
}

/** Replaces the notebook (from a file, an example or a link); nothing runs. */
function replaceNotebook(cells) {
  model.load(cells);
  if (model.cells[0]) controller.focus(model.cells[0].id);
}

// Toolbar.
$('run-all').addEventListener('click', () => controller.runAll());
$('stop').addEventListener('click', stop);
$('restart').addEventListener('click', () => runner.restart());
$('clear-outputs').addEventListener('click', () => model.clearOutputs());
initStopOnError($('stop-on-error'), runner);
initSidePanels({ model, engine, runner, controller, variablesToggle: $('variables-toggle'), outlineToggle: $('outline-toggle'), variables: $('variables'), outline: $('outline') });
$('add-code').addEventListener('click', () => controller.append('code'));
$('add-markdown').addEventListener('click', () => controller.append('markdown'));
$('save-py').addEventListener('click', () => savePy(model.snapshot()));
$('save-ipynb').addEventListener('click', exportNow);
$('help').addEventListener('click', openHelp);
$('share').addEventListener('click', () => shareNotebook(model.snapshotWithOutputs()));
$('examples').addEventListener('click', async () => openGallery(await listExamples(), openExample, await backupEntry()));
const fileInput = /** @type {HTMLInputElement} */ ($('file-input'));
$('open').addEventListener('click', () => fileInput.click());
fileInput.addEventListener('change', async () => {
  const file = fileInput.files[0];
  fileInput.value = '';
  if (!file) return;
  try {
    replaceNotebook(await readNotebookFile(file));
  } catch (error) {
    showBanner('open', { key: 'banner.openFailed', parameters: { name: file.name, message: error.message } });
  }
});

onLocaleChange((tag) => {
  // The untouched starter follows the language; a notebook with any change of the reader's stays.
  const starter = starterLocale(model.snapshot());
  if (starter !== null && starter !== tag) model.load(starterCells(tag));
  view.relabel();
  refreshEditorPhrases();
  engine.setLanguage(tag).catch(() => {});
  languageSelect.value = locale();
});

// Ctrl/Cmd+Shift+. stops from anywhere, the editors included.
addEventListener('keydown', (event) => {
  if ((event.ctrlKey || event.metaKey) && event.shiftKey && event.code === 'Period') {
    event.preventDefault();
    stop();
  }
});

/** Opens the saved notebook, or the starter one; a shared link in the address wins. */
async function start() {
  engine.start();
  let cells = null;
  try {
    await autosave.open();
    cells = await autosave.load();
  } catch (error) {
    const key = error?.code === 'newer' ? 'banner.newerSave' : 'banner.badSave';
    showBanner('load', { key, parameters: { message: error?.message ?? String(error) } });
  }
  model.load(cells ?? starterCells(locale()));
  await openSharedLink(location.hash, { autosave, replaceNotebook });
  addEventListener('hashchange', () => openSharedLink(location.hash, { autosave, replaceNotebook }));
  document.body.dataset.ready = 'true';
}

// A handle for the end-to-end tests and for curious readers in the console.
globalThis.tilelab = { engine, model, runner, view, controller, smoke: () => engine.smoke(), flush: () => autosave.flush() };
start();
