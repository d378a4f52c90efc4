// The engine, end to end: the wasm core starts in the notebook's Web Worker under the page's
// Content-Security-Policy, reports the crate version, has SIMD, and multiplies matrices correctly
// (the worker's `smoke` request, asked through the page's engine client).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, crateVersion, openPage, screenshot, startSite } from './harness.mjs';

let site;

before(async () => {
  site = await startSite();
});

after(async () => {
  await site?.close();
});

/** Opens the page with a colour scheme and waits until the notebook and the engine are ready. */
async function loadPage(colorScheme) {
  const opened = await openPage(site.browser, {
    colorScheme,
    viewport: { width: 1100, height: 640 },
    // The first test provokes exactly this refusal on purpose to show the policy is enforced.
    expectedConsoleErrors: [/^Executing inline script violates the following Content Security Policy directive 'script-src/],
  });
  await opened.page.goto(site.url);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  await opened.page.waitForSelector('#engine[data-state="ready"], #engine[data-state="failed"]', { timeout: 60_000 });
  return opened;
}

/**
 * Recomputes C = A @ B in f64 from the inputs the page reports: C[i][j] = Σ_k A[i][k]·B[k][j].
 * Returns C and, per element, Σ_k |A[i][k]·B[k][j]| (the scale of the rounding error).
 */
function referenceMatmul(a, b, m, k, n) {
  const exact = new Float64Array(m * n);
  const magnitude = new Float64Array(m * n);
  for (let i = 0; i < m; i += 1) {
    for (let j = 0; j < n; j += 1) {
      let sum = 0;
      let scale = 0;
      for (let p = 0; p < k; p += 1) {
        const term = a[i * k + p] * b[p * n + j];
        sum += term;
        scale += Math.abs(term);
      }
      exact[i * n + j] = sum;
      magnitude[i * n + j] = scale;
    }
  }
  return { exact, magnitude };
}

/** bf16 keeps the top 16 bits of an f32: a value is representable iff its low 16 bits are zero. */
function isBf16(value) {
  const bits = new Uint32Array(new Float32Array([value]).buffer)[0];
  return (bits & 0xffff) === 0;
}

test('the page shows the version, and the worker has SIMD and a correct f32 and bf16 matmul', async () => {
  const { page, problems, context } = await loadPage('light');
  try {
    assert.equal(await page.getAttribute('#engine', 'data-state'), 'ready');
    assert.equal(await page.textContent('#version'), `v${crateVersion()}`);

    const report = await page.evaluate(() => globalThis.tilelab.smoke());
    assert.equal(report.version, crateVersion());
    assert.equal(report.simd, true);
    assert.deepEqual(report.cases.map((matmul) => matmul.dtype), ['f32', 'bf16']);

    for (const matmul of report.cases) {
      const [m, k] = matmul.a_shape;
      const n = matmul.b_shape[1];
      assert.deepEqual([m, k, n], [64, 64, 64]);
      assert.deepEqual(matmul.out_shape, [m, n]);
      assert.equal(matmul.a.length, m * k);
      assert.equal(matmul.b.length, k * n);
      assert.equal(matmul.out.length, m * n);

      // randn inputs: sample mean ≈ 0 and variance ≈ 1 (4096 samples: standard error of the
      // mean 1/64, of the variance ≈ √(2/4096) ≈ 0.022), so the inputs are not a constant pattern.
      for (const values of [matmul.a, matmul.b]) {
        const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
        const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
        assert.ok(Math.abs(mean) < 0.1, `${matmul.dtype} input mean ${mean}`);
        assert.ok(Math.abs(variance - 1) < 0.15, `${matmul.dtype} input variance ${variance}`);
        if (matmul.dtype === 'bf16') assert.ok(values.every(isBf16), 'bf16 inputs are stored rounded to bf16');
      }

      // f32 accumulation over k = 64 terms: |error| ≤ 1e-5·Σ|terms|; a bf16 output adds one rounding
      // of relative size 2⁻⁸ (half an ulp of an 8-bit significand).
      const { exact, magnitude } = referenceMatmul(matmul.a, matmul.b, m, k, n);
      const rounding = matmul.dtype === 'bf16' ? 2 ** -8 : 0;
      let referenceChecksum = 0;
      for (let index = 0; index < m * n; index += 1) {
        const tolerance = 1e-5 * magnitude[index] + rounding * Math.abs(exact[index]);
        const error = Math.abs(matmul.out[index] - exact[index]);
        assert.ok(error <= tolerance, `${matmul.dtype} C[${index}] = ${matmul.out[index]}, reference ${exact[index]}`);
        referenceChecksum += exact[index];
        if (matmul.dtype === 'bf16') assert.ok(isBf16(matmul.out[index]), 'bf16 outputs are stored rounded');
      }
      const checksumTolerance = magnitude.reduce((sum, value) => sum + value, 0) * (1e-5 + rounding);
      assert.ok(
        Math.abs(matmul.checksum - referenceChecksum) <= checksumTolerance,
        `${matmul.dtype} checksum ${matmul.checksum}, reference ${referenceChecksum}`,
      );
      assert.deepEqual(matmul.preview, matmul.out.slice(0, matmul.preview.length));
      assert.ok(matmul.milliseconds >= 0 && matmul.repeats > 0);
    }

    // The Content-Security-Policy is in force: an inline script added to the page does not run.
    const inlineRan = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'globalThis.inlineScriptRan = true;';
      document.head.append(script);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return globalThis.inlineScriptRan === true;
    });
    assert.equal(inlineRan, false, 'the policy must refuse inline scripts');

    await screenshot(page, 'smoke-light');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the page renders in the dark theme without errors', async () => {
  const { page, problems, context } = await loadPage('dark');
  try {
    assert.equal(await page.getAttribute('#engine', 'data-state'), 'ready');
    // The dark palette is in force: the body background is dark (luminance of rgb below one half).
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [red, green, blue] = background.match(/\d+/g).map(Number);
    assert.ok(0.2126 * red + 0.7152 * green + 0.0722 * blue < 128, `background ${background}`);
    await screenshot(page, 'smoke-dark');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the server sends the Content-Security-Policy and wasm with its MIME type', async () => {
  const response = await fetch(site.url);
  assert.equal(response.status, 200);
  const policy = response.headers.get('content-security-policy');
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'/);
  const html = await response.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline scripts: the policy forbids them');
  const wasmFile = readdirSync(join(ROOT, 'dist', 'assets')).find((name) => name.endsWith('.wasm'));
  assert.ok(wasmFile, 'dist/assets holds the wasm module');
  const wasm = await fetch(new URL(`assets/${wasmFile}`, site.url));
  assert.equal(wasm.headers.get('content-type'), 'application/wasm');
  const outside = await fetch(`${site.url}%2e%2e/Cargo.toml`);
  assert.ok(outside.status === 403 || outside.status === 404, 'no file outside dist/ is served');
});
