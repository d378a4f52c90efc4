// Diagnostics while typing: a pause in a code cell's editor asks the engine worker to parse the
// text (nothing runs) and underlines what the parser found, if the text is still the same.
/** The pause after the last keystroke before the text is checked, in ms. */
const DELAY_MS = 350;

export class LiveCheck {
  /** `engine` answers checkSyntax(code); `views` finds a cell's view by id. */
  constructor(engine, views) {
    this.engine = engine;
    this.views = views;
    this.timers = new Map();
  }

  /** A cell's text changed: check it after a pause (a later change restarts the pause). */
  typed(id, text) {
    clearTimeout(this.timers.get(id));
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.check(id, text);
      }, DELAY_MS),
    );
  }

  async check(id, text) {
    let diagnostics;
    try {
      diagnostics = await this.engine.checkSyntax(text);
    } catch {
      return; // The engine restarted or is not ready: the next pause checks again.
    }
    const view = this.views.view(id);
    if (view && view.text() === text) view.setSyntaxDiagnostics(diagnostics ?? []);
  }
}
