// Two measurements of the page's views under big input (issues 16 and 19), used by bench-page.mjs:
//   gantt — a generated 50k-event schedule shown in a cell, then zoomed in step by step to the
//           maximum, panned across and zoomed out again; every frame's requestAnimationFrame
//           timestamp is recorded and the gaps between them are the figure (max and p95);
//   open  — loading a 1000-cell notebook into the page: call → cells on the page and two frames
//           drawn with them.
import { generatedSchedule, showDisplay } from './bench-page-trace.mjs';

/** Gantt target of issue 16: every frame gap while zooming under this. */
export const FRAME_GAP_TARGET_MS = 50;
/** Events in the generated schedule. */
export const GANTT_EVENTS = 50_000;
/** Cells in the long notebook. */
export const LONG_NOTEBOOK_CELLS = 1000;

/** The `fraction` quantile of `values` (nearest rank). */
export function quantile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

async function readyPage(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('#engine[data-state="ready"]', { timeout: 60_000 });
  return { context, page };
}

// Runs in the page: zooms the Gantt in to the maximum, pans across, zooms out, one step per frame;
// returns the frame timestamps and the number of steps.
async function zoomAndPan() {
  const view = document.querySelector('.output-schedule');
  const zoomIn = view.querySelector('.schedule-zoom-in');
  const zoomOut = view.querySelector('.schedule-zoom-out');
  const scroller = view.querySelector('.schedule-scroll');
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const stamps = [];
  let running = true;
  const tick = (time) => {
    stamps.push(time);
    if (running) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  await frame();
  // The script time of each step (the click handler's redraw, or the scroll's repaint in the next
  // frame), apart from the frame gaps, which also hold style, layout and compositing.
  const work = [];
  const step = async (action) => {
    const started = performance.now();
    action();
    work.push(performance.now() - started);
    await frame();
  };
  while (!zoomIn.disabled) await step(() => zoomIn.click());
  for (let pan = 0; pan < 10; pan += 1) await step(() => (scroller.scrollLeft += scroller.clientWidth * 0.8));
  while (!zoomOut.disabled) await step(() => zoomOut.click());
  await frame();
  running = false;
  return { stamps, work };
}

/**
 * The frame gaps while zooming a generated 50k-event schedule, over `rounds` runs of the zoom and
 * pan sequence (other work on a shared machine delays single frames; the median round is the
 * figure, the worst is kept beside it): { events, steps, frames, maxMs, p95Ms (median round),
 * worstMaxMs, rounds: [{ maxMs, p95Ms }], maxStepScriptMs, renderMs (shown until two frames drawn) }.
 */
export async function ganttFrames(browser, url, { events = GANTT_EVENTS, rounds = 3 } = {}) {
  const { context, page } = await readyPage(browser, url);
  try {
    await page.evaluate(() => globalThis.tilelab.model.load([{ kind: 'code', source: 'pt.schedule(kernel, x)' }]));
    const display = generatedSchedule(events);
    const renderMs = await page.evaluate(showDisplay, display);
    await page.waitForSelector('.output-schedule .schedule-event', { state: 'attached' });
    const measured = [];
    for (let round = 0; round < rounds; round += 1) {
      const { stamps, work } = await page.evaluate(zoomAndPan);
      const gaps = stamps.slice(1).map((time, index) => time - stamps[index]);
      measured.push({ maxMs: Math.max(...gaps), p95Ms: quantile(gaps, 0.95), frames: stamps.length, steps: work.length, scriptMs: Math.max(...work) });
    }
    const middle = [...measured].sort((a, b) => a.maxMs - b.maxMs)[Math.floor(measured.length / 2)];
    return {
      events,
      steps: middle.steps,
      frames: middle.frames,
      maxMs: middle.maxMs,
      p95Ms: middle.p95Ms,
      worstMaxMs: Math.max(...measured.map((round) => round.maxMs)),
      rounds: measured.map(({ maxMs, p95Ms }) => ({ maxMs, p95Ms })),
      maxStepScriptMs: Math.max(...measured.map((round) => round.scriptMs)),
      renderMs,
      target: FRAME_GAP_TARGET_MS,
    };
  } finally {
    await context.close();
  }
}

/** The cells of a long notebook: markdown headings every tenth cell, code cells of a few lines. */
export function longNotebook(count = LONG_NOTEBOOK_CELLS) {
  return Array.from({ length: count }, (_, index) =>
    index % 10 === 0
      ? { kind: 'markdown', source: `## Part ${index / 10}\n\nNotes on the next cells.` }
      : { kind: 'code', source: `x${index} = ${index}\ny${index} = x${index} * 2\nprint(y${index})` },
  );
}

/** Milliseconds from loading a 1000-cell notebook to the page showing it (two frames drawn), median of `rounds`. */
export async function longNotebookOpen(browser, url, rounds = 3, count = LONG_NOTEBOOK_CELLS) {
  const { context, page } = await readyPage(browser, url);
  try {
    const samples = [];
    for (let round = 0; round < rounds; round += 1) {
      await page.evaluate(() => globalThis.tilelab.model.load([{ kind: 'code', source: '' }]));
      samples.push(
        await page.evaluate(async (cells) => {
          const started = performance.now();
          globalThis.tilelab.model.load(cells);
          await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
          return performance.now() - started;
        }, longNotebook(count)),
      );
    }
    return { cells: count, samples, medianMs: quantile(samples, 0.5) };
  } finally {
    await context.close();
  }
}
