// Wires one notebook onto a page: the engine (the wasm session in a Web Worker), the model, the
// runner, the controller and the view, plus the polite live region that announces results.
// Shared by the full page (main.js) and the embed view (embed.js).
import { Engine } from '../engine/client.js';
import { NotebookModel } from './model.js';
import { Runner } from './runner.js';
import { NotebookView } from './view.js';
import { Controller } from './controller.js';
import { LiveCheck } from './live-check.js';
import { ReadController, enterReadMode } from '../ui/read-mode.js';
import { t } from '../i18n/index.js';

/**
 * The engine as the runner sees it, with `prelude` (code that is not shown, e.g. the cells above
 * the one cell an embed shows) run first in every fresh session: after start, Stop or a crash.
 */
class PreludeSession {
  constructor(engine) {
    this.engine = engine;
    this.prelude = [];
    this.preparedGeneration = -1;
  }

  /** Replaces the prelude; the next run of a cell runs it first. */
  setPrelude(sources) {
    this.prelude = [...sources];
    this.preparedGeneration = -1;
  }

  /**
   * Runs `code` after the prelude (`onProgress` sees the progress of `code` only); a failing
   * prelude cell's result is returned in its place.
   */
  async run(code, onProgress) {
    if (this.prelude.length > 0 && this.preparedGeneration !== this.engine.generation) {
      const generation = this.engine.generation;
      for (const source of this.prelude) {
        const result = await this.engine.run(source);
        if (result?.status === 'error') return result;
      }
      this.preparedGeneration = generation;
    }
    return this.engine.run(code, onProgress);
  }

  stop() {
    return this.engine.stop();
  }

  /** The trace JSON of a kernel schedule by its key (null once the session no longer keeps it). */
  kernelTrace(key) {
    return this.engine.kernelTrace(key);
  }

  restartSession() {
    return this.engine.restartSession();
  }
}

/**
 * Mounts a notebook into `cells`; `announcer` is the live region, `openHelp` shows the shortcuts.
 * `mode` 'read' makes it read-only (cells still run unless `canRun` is false). The returned
 * `setPrelude(sources)` sets code that runs, unseen, before the first cell of every session.
 */
export function mountNotebook({ cells, announcer, openHelp, mode = 'edit', canRun = true }) {
  /** Tells screen readers something through the polite live region. */
  function announce(text) {
    announcer.textContent = '';
    setTimeout(() => {
      announcer.textContent = text;
    }, 30);
  }
  const engine = new Engine(() => new Worker(new URL('../worker.js', import.meta.url), { type: 'module' }));
  const model = new NotebookModel();
  const session = new PreludeSession(engine);
  const runner = new Runner(model, session);
  // Stop while idle does nothing (the session and its variables stay) and says so.
  const stop = async () => {
    if (!(await runner.stop())) announce(t('announce.nothingToStop'));
  };
  const options = { model, runner, announce, openHelp, stop };
  const reading = mode === 'read';
  const controller = reading ? new ReadController(options, { canRun }) : new Controller(options);
  const view = new NotebookView(model, cells, controller);
  controller.attach(view);
  const live = new LiveCheck(engine, view);
  controller.typed = (id, text) => live.typed(id, text);
  if (reading) enterReadMode({ model, view, cells, announce, canRun });
  return { announce, engine, model, runner, controller, view, stop, setPrelude: (sources) => session.setPrelude(sources) };
}
