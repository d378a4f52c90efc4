// Wires one notebook onto a page: the engine (the wasm session in a Web Worker), the model, the
// runner, the controller and the view, plus the polite live region that announces results.
// Shared by the full page (main.js) and the embed view (embed.js).
import { Engine } from '../engine/client.js';
import { NotebookModel } from './model.js';
import { Runner } from './runner.js';
import { NotebookView } from './view.js';
import { Controller } from './controller.js';

/** Mounts a notebook into `cells`; `announcer` is the live region, `openHelp` shows the shortcuts. */
export function mountNotebook({ cells, announcer, openHelp }) {
  /** Tells screen readers something through the polite live region. */
  function announce(text) {
    announcer.textContent = '';
    setTimeout(() => {
      announcer.textContent = text;
    }, 30);
  }
  const engine = new Engine(() => new Worker(new URL('../worker.js', import.meta.url), { type: 'module' }));
  const model = new NotebookModel();
  const runner = new Runner(model, engine);
  const controller = new Controller({ model, runner, announce, openHelp, stop: () => runner.stop() });
  const view = new NotebookView(model, cells, controller);
  controller.attach(view);
  return { announce, engine, model, runner, controller, view };
}
