// Which of the two wasm builds the worker loads. The relaxed-simd build fuses multiply and add in
// its GEMM: faster on some CPUs (Intel Xeon: 1.17× at 512³), slower on others (AMD EPYC family 26:
// 0.96×), so validation alone does not decide. Where the browser validates relaxed-simd, a short
// calibration at start-up times the same matmul in both builds, the faster one wins, and the
// choice is kept per browser (IndexedDB, keyed by the user agent and the builds' file names), so only
// the first start pays for it (~30 ms of matmuls plus compiling the second module).

/** A one-function module using f32x4.relaxed_madd: valid only where the engine has relaxed-simd. */
export const RELAXED_SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2, 253, 133, 2, 11]);

/** The relaxed build must beat simd128 by this factor: a tie keeps simd128, the bit-exact reference. */
export const RELAXED_MARGIN = 1.02;

/** Side of the square f32 matmul the calibration times (33.5 MFLOP, about 1–2 ms a call). */
export const CALIBRATION_SIZE = 256;

/** Timed calls per build; the builds alternate so a burst of other load hits both. */
export const CALIBRATION_ROUNDS = 7;

/**
 * @typedef {'simd128' | 'relaxed'} BuildName
 * @typedef {{ simd128: number[], relaxed: number[] }} CalibrationSamples  milliseconds per call
 * @typedef {{ build: BuildName, samples: CalibrationSamples | null, reason: string }} BuildChoice
 * @typedef {{ benchLoad: Function, benchMatmul: Function, benchClear: Function }} BenchApi
 */

/** @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The faster build by the medians of the calibration samples (relaxed only when it is faster by
 * RELAXED_MARGIN).
 * @param {CalibrationSamples} samples
 * @returns {BuildName}
 */
export function fasterBuild(samples) {
  const simd = median(samples.simd128);
  const relaxed = median(samples.relaxed);
  if (!(simd > 0) || !(relaxed > 0)) return 'simd128';
  return simd / relaxed >= RELAXED_MARGIN ? 'relaxed' : 'simd128';
}

/**
 * Times CALIBRATION_ROUNDS matmuls of each build on the same seeded inputs, alternating builds.
 * @param {{ simd128: BenchApi, relaxed: BenchApi }} builds  each build's `Playground` class
 * @param {() => number} now  a millisecond clock (performance.now)
 * @returns {CalibrationSamples}
 */
export function calibrate(builds, now) {
  const size = CALIBRATION_SIZE;
  const values = new Float32Array(size * size);
  for (let index = 0; index < values.length; index += 1) values[index] = ((index * 7919) % 1000) / 1000 - 0.5;
  const shape = new Uint32Array([size, size]);
  /** @type {CalibrationSamples} */
  const samples = { simd128: [], relaxed: [] };
  for (const api of [builds.simd128, builds.relaxed]) {
    api.benchLoad('calibration_a', values, shape, 'f32');
    api.benchLoad('calibration_b', values, shape, 'f32');
    api.benchMatmul('calibration_a', 'calibration_b', 'calibration_c', null); // warm-up: compiles the code path
  }
  for (let round = 0; round < CALIBRATION_ROUNDS; round += 1) {
    for (const name of /** @type {BuildName[]} */ (round % 2 ? ['relaxed', 'simd128'] : ['simd128', 'relaxed'])) {
      const start = now();
      builds[name].benchMatmul('calibration_a', 'calibration_b', 'calibration_c', null);
      samples[name].push(now() - start);
    }
  }
  builds.simd128.benchClear();
  builds.relaxed.benchClear();
  return samples;
}

/**
 * Picks the build: simd128 where relaxed-simd does not validate; else the cached choice of this
 * browser; else a fresh calibration, which is then cached.
 * @param {{
 *   relaxedValid: boolean,
 *   key: string,
 *   readCache: (key: string) => Promise<BuildChoice | null>,
 *   writeCache: (key: string, choice: BuildChoice) => Promise<void>,
 *   measure: () => Promise<CalibrationSamples>,
 * }} options
 * @returns {Promise<BuildChoice>}
 */
export async function selectBuild({ relaxedValid, key, readCache, writeCache, measure }) {
  if (!relaxedValid) return { build: 'simd128', samples: null, reason: 'relaxed-simd does not validate here' };
  const cached = await readCache(key).catch(() => null);
  if (cached && (cached.build === 'simd128' || cached.build === 'relaxed')) {
    return { ...cached, reason: 'cached calibration of this browser' };
  }
  let samples;
  try {
    samples = await measure();
  } catch (error) {
    // A build that cannot start or run here is no choice: simd128, not cached (a later start retries).
    return { build: 'simd128', samples: null, reason: `calibration failed: ${error?.message ?? error}` };
  }
  /** @type {BuildChoice} */
  const choice = { build: fasterBuild(samples), samples, reason: 'calibrated at start-up' };
  await writeCache(key, choice).catch(() => {});
  return choice;
}

/**
 * The cache key: the browser (user agent) and the builds (the URL of a wasm file, which the
 * bundler names by its content hash, so a new build calibrates again).
 * @param {string} userAgent
 * @param {string} builds
 */
export function cacheKey(userAgent, builds) {
  return `${userAgent} | ${builds}`;
}

const DATABASE = 'tilelab-build-choice';
const STORE = 'choices';

/** @returns {Promise<IDBDatabase>} */
function openDatabase() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/**
 * The cached choice under `key` (IndexedDB: workers have no localStorage), or null.
 * @param {string} key
 * @returns {Promise<BuildChoice | null>}
 */
export async function readCachedChoice(key) {
  if (typeof indexedDB === 'undefined') return null;
  const database = await openDatabase();
  return new Promise((resolve, reject) => {
    const request = database.transaction(STORE, 'readonly').objectStore(STORE).get(key);
    request.onsuccess = () => resolve(request.result ?? null);
    request.onerror = () => reject(request.error);
  });
}

/**
 * Keeps `choice` under `key`.
 * @param {string} key
 * @param {BuildChoice} choice
 * @returns {Promise<void>}
 */
export async function writeCachedChoice(key, choice) {
  if (typeof indexedDB === 'undefined') return;
  const database = await openDatabase();
  return new Promise((resolve, reject) => {
    const transaction = database.transaction(STORE, 'readwrite');
    transaction.objectStore(STORE).put({ build: choice.build, samples: choice.samples }, key);
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
  });
}
