// Shared set-up of the end-to-end tests: serve dist/ on a free loopback port and drive Debian's
// Chromium through playwright-core. Never downloads a browser.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where screenshots go (git-ignored). */
export const ARTIFACTS = join(ROOT, 'test-artifacts');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Without the networking flags Chromium keeps trying to reach Google's services, which this
// machine's closed network refuses; --no-sandbox because CI runs as root.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-quic',
  '--disable-sync',
];

/** The crate version, read from Cargo.toml's [package] table. */
export function crateVersion() {
  const manifest = readFileSync(join(ROOT, 'Cargo.toml'), 'utf8');
  const packageTable = manifest.split(/^\[/m).find((table) => table.startsWith('package]'));
  const match = packageTable?.match(/^version\s*=\s*"([^"]+)"/m);
  if (!match) throw new Error('no version in the [package] table of Cargo.toml');
  return match[1];
}

/**
 * Serves dist/ and launches Chromium (playwright gives every launch a fresh temporary
 * user-data-dir). Returns { url, browser, close }.
 */
export async function startSite() {
  const dist = join(ROOT, 'dist');
  if (!existsSync(join(dist, 'index.html'))) {
    throw new Error('dist/index.html is missing: build the page first (make web)');
  }
  const { server, url } = await startServer({ root: dist, port: 0 });
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
  } catch (error) {
    server.close();
    throw error;
  }
  const close = async () => {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  };
  return { url, browser, close };
}

/**
 * Opens a page that records every console error and uncaught exception of the page and of its
 * workers into `problems`, except console errors matching one of `expectedConsoleErrors` (regexes).
 */
export async function openPage(browser, { expectedConsoleErrors, ...options } = {}) {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const problems = [];
  const expected = expectedConsoleErrors ?? [];
  const recordConsole = (origin) => (message) => {
    if (message.type() !== 'error') return;
    if (expected.some((pattern) => pattern.test(message.text()))) return;
    problems.push(`${origin} console.error: ${message.text()}`);
  };
  page.on('console', recordConsole('page'));
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('worker', (worker) => worker.on('console', recordConsole('worker')));
  page.on('crash', () => problems.push('page crashed'));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
  });
  return { context, page, problems };
}

/**
 * Makes the window as tall as the page for a full-page screenshot, so every cell is in view.
 * CodeMirror measures and draws an editor only while it is in view (until then its line numbers
 * sit at estimated heights and a long cell shows only its first lines); a full-page capture of a
 * short window shows those placeholders, which a reader, who scrolls to each cell, never sees.
 * A page taller than the largest window is scrolled through, a window at a time.
 * Returns the window size to restore.
 */
async function showWholePage(page) {
  const viewport = page.viewportSize();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  if (viewport && height > viewport.height) {
    // Pages taller than a window can be are brought into view a window at a time.
    await page.setViewportSize({ width: viewport.width, height: Math.min(height, 16_000) });
    await page.evaluate(async () => {
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      for (let top = 0; top < document.documentElement.scrollHeight; top += window.innerHeight) {
        window.scrollTo(0, top);
        await frame();
      }
      window.scrollTo(0, 0);
      await frame();
    });
  }
  return viewport;
}

/** Saves a screenshot of the whole page under test-artifacts/ and returns its path. */
export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  const viewport = await showWholePage(page);
  await page.screenshot({ path, fullPage: true });
  if (viewport) await page.setViewportSize(viewport);
  return path;
}
