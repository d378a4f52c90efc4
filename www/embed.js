// The embed view (embed.html#nb=…): a shared notebook inside a tutorial page. Its own worker, no
// autosave (it never touches the reader's own notebook), nothing runs until the reader asks, and
// a link opens the same notebook in the full page.
import { initLocale, onLocaleChange, t } from './i18n/index.js';
import { mountNotebook } from './notebook/mount.js';
import { ShareError, decodeNotebook, sharedPayload } from './notebook/share.js';
import { refreshEditorPhrases } from './editor/setup.js';
import { initBanners, showBanner } from './ui/banner.js';
import { openHelp } from './ui/dialogs.js';

const $ = (id) => document.getElementById(id);

initLocale();
initBanners($('banners'));

const { announce, engine, model, runner, controller, view } = mountNotebook({ cells: $('cells'), announcer: $('announcer'), openHelp });

engine.addEventListener('status', (event) => {
  const badge = $('engine');
  badge.dataset.state = event.detail;
  badge.dataset.i18n = `engine.${event.detail}`;
  badge.textContent = t(`engine.${event.detail}`);
});
engine.addEventListener('restart', () => model.markStale());
engine.addEventListener('crash', (event) => showBanner('crash', { key: 'banner.crashed', parameters: { message: event.detail.message } }));
runner.addEventListener('finished', (event) => {
  const { id, run } = event.detail;
  const index = model.indexOf(id) + 1;
  if (run?.state === 'done') announce(t('announce.finished', { index, ms: Math.round(run.ms) }));
  else if (run && !run.stopped) announce(t('announce.failed', { index, message: run.engineError ?? run.result?.diagnostics?.[0]?.message ?? '' }));
});
$('run-all').addEventListener('click', () => controller.runAll());
$('stop').addEventListener('click', () => runner.stop());
onLocaleChange(() => {
  view.relabel();
  refreshEditorPhrases();
});

async function start() {
  engine.start();
  const payload = sharedPayload(location.hash);
  if (payload !== null) {
    $('open-full').href = `./index.html#nb=${payload}`;
    try {
      model.load(await decodeNotebook(payload));
    } catch (error) {
      if (!(error instanceof ShareError)) throw error;
      const key = error.code === 'too-large' ? 'banner.shareTooLarge' : 'banner.shareMalformed';
      showBanner('share', { key, parameters: { message: error.message } });
      model.load([]);
    }
  } else {
    model.load([]);
  }
  document.body.dataset.ready = 'true';
}

globalThis.tilelab = { engine, model, runner };
start();
