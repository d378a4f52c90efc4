// The embed view for tutorial pages: `embed.html?src=…&cell=N|N-M&preset=…&mode=read&run=0&lang=…&theme=…&frame=…`
// or `embed.html#nb=…` (inline code; the <tile-lab> element writes either). Its own worker, no
// autosave (it never touches the reader's own notebook), nothing runs until the reader asks, and a
// link opens the same notebook in the full page. Inside a <tile-lab> frame it reports its height.
import { LOCALES, initLocale, locale, onLocaleChange, setLocale, t } from './i18n/index.js';
import { mountNotebook } from './notebook/mount.js';
import { ShareError, decodeNotebook, encodeNotebook, sharedPayload } from './notebook/share.js';
import { refreshEditorPhrases } from './editor/setup.js';
import { initBanners, showBanner } from './ui/banner.js';
import { openHelp } from './ui/dialogs.js';
import { loadSource, parseEmbedQuery, selectCell } from './ui/embed-source.js';
import { reportHeight } from './ui/embed-frame.js';
import './css/embed.css';

const $ = (id) => document.getElementById(id);
const options = parseEmbedQuery(location.search, LOCALES);

initLocale();
if (options.lang !== null && options.lang !== locale()) showLanguageUnremembered(options.lang);
if (options.theme !== null) document.documentElement.dataset.theme = options.theme;
initBanners($('banners'));

/**
 * Switches to the tutorial's language without making it the reader's remembered choice: the
 * embed shares localStorage with the full page, whose language is the reader's own.
 */
function showLanguageUnremembered(tag) {
  const KEY = 'tilelab.locale';
  let before = null;
  try {
    before = localStorage.getItem(KEY);
  } catch {
    // No storage: nothing to restore.
  }
  setLocale(tag);
  try {
    if (before === null) localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, before);
  } catch {
    // As above.
  }
}

const { announce, engine, model, runner, controller, view, stop, setPrelude } = mountNotebook({
  cells: $('cells'),
  announcer: $('announcer'),
  openHelp,
  mode: options.mode,
  canRun: options.canRun,
});

engine.addEventListener('status', /** @param {CustomEvent} event */ (event) => {
  const badge = $('engine');
  badge.dataset.state = event.detail;
  badge.dataset.i18n = `engine.${event.detail}`;
  badge.textContent = t(`engine.${event.detail}`);
});
engine.addEventListener('restart', () => model.markStale());
engine.addEventListener('crash', /** @param {CustomEvent} event */ (event) => showBanner('crash', { key: 'banner.crashed', parameters: { message: event.detail.message } }));
runner.addEventListener('finished', /** @param {CustomEvent} event */ (event) => {
  const { id, run } = event.detail;
  const index = model.indexOf(id) + 1;
  if (run?.state === 'done') announce(t('announce.finished', { index, ms: Math.round(run.ms) }));
  else if (run && !run.stopped) announce(t('announce.failed', { index, message: run.engineError ?? run.result?.diagnostics?.[0]?.message ?? '' }));
});
$('run-all').addEventListener('click', () => controller.runAll());
$('stop').addEventListener('click', stop);
onLocaleChange(() => {
  view.relabel();
  refreshEditorPhrases();
});

/** The whole notebook the address names (fragment first, then `src`); [] with a banner on failure. */
async function notebookCells() {
  const payload = sharedPayload(location.hash);
  if (payload !== null) {
    try {
      return await decodeNotebook(payload);
    } catch (error) {
      if (!(error instanceof ShareError)) throw error;
      const key = error.code === 'too-large' ? 'banner.shareTooLarge' : 'banner.shareMalformed';
      showBanner('share', { key, parameters: { message: error.message } });
      return [];
    }
  }
  if (options.src !== null) {
    try {
      return await loadSource(options.src);
    } catch (error) {
      showBanner('source', { key: 'embed.sourceFailed', parameters: { source: options.src, message: error.message } });
      return [];
    }
  }
  return [];
}

async function start() {
  engine.start();
  const cells = await notebookCells();
  let shown = cells;
  let prelude = [];
  if (options.cell !== null && cells.length > 0) {
    const selected = selectCell(cells, options.cell, options.cellEnd);
    if (selected === null) {
      showBanner('cell', { key: 'embed.noSuchCell', parameters: { cell: options.cell, count: cells.length } });
    } else {
      shown = selected.shown;
      prelude = selected.prelude;
    }
  }
  // `preset=`: the lesson's NPU, chosen unseen in every fresh session before the cells above.
  if (options.preset !== null) prelude = [`import pypto\npypto.npu.use("${options.preset}")`, ...prelude];
  setPrelude(prelude);
  // One cell: a lighter frame (its own ▶ runs it; no Run all, Stop or engine badge).
  document.body.dataset.frame = shown.length === 1 ? 'light' : 'full';
  model.load(shown);
  if (cells.length > 0) {
    // "Open in TileLab" carries the whole notebook, not only the shown cell.
    encodeNotebook(cells).then(
      (encoded) => {
        /** @type {HTMLAnchorElement} */ ($('open-full')).href = `./index.html#nb=${encoded}`;
      },
      () => {},
    );
  }
  if (options.frame !== null) reportHeight(options.frame);
  document.body.dataset.ready = 'true';
}

// A <tile-lab> element whose inline code changed points its frame at a new fragment, which does
// not reload a page by itself.
addEventListener('hashchange', () => location.reload());

globalThis.tilelab = { engine, model, runner };
start();
