// Inputs and f64 references of the benchmark, written independently of every contender: a seeded
// generator, plain f64 loops for matmul, add, sum and one MLP training step, and the checks that
// compare a contender's output with them before it is timed.

/** A seeded generator (xorshift32 + Box–Muller): the same inputs on every run and contender. */
export function generator(seed) {
  let state = seed >>> 0 || 1;
  const uniform = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return (state + 0.5) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

/** `count` normal values scaled by `scale`, as f32. */
export function randomValues(seed, count, scale = 1) {
  const { normal } = generator(seed);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i += 1) values[i] = normal() * scale;
  return values;
}

/** The value rounded to bf16 (round to nearest even), as f32: what bf16 storage keeps. */
export function roundToBf16(values) {
  const bits = new Uint32Array(values.buffer.slice(0));
  for (let i = 0; i < bits.length; i += 1) {
    const value = bits[i];
    bits[i] = ((value + 0x7fff + ((value >>> 16) & 1)) >>> 16) << 16;
  }
  return new Float32Array(bits.buffer);
}

/** `count` values on the grid 2⁻ᵇⁱᵗˢ in [−1, 1]: normal·scale rounded to the grid, clamped (see `exactBound`). */
export function gridValues(seed, count, bits, scale = 0.4) {
  const { normal } = generator(seed);
  const steps = 2 ** bits;
  const values = new Float32Array(count);
  for (let i = 0; i < count; i += 1) values[i] = Math.max(-steps, Math.min(steps, Math.round(normal() * scale * steps))) / steps;
  return values;
}

/** The largest power of two that divides every value (finite f32 values), and max |value|. */
export function quantum(values) {
  let exponent = Infinity;
  let largest = 0;
  for (const value of values) {
    largest = Math.max(largest, Math.abs(value));
    if (value === 0) continue;
    // An f32 is an integer times 2^(⌊log₂|v|⌋ − 23) (or 2⁻¹⁴⁹ when subnormal); dividing by powers
    // of two is exact in f64, so step up while the quotient stays an integer.
    let e = Math.max(-149, Math.floor(Math.log2(Math.abs(value))) - 23);
    while (Number.isInteger(value / 2 ** (e + 1))) e += 1;
    exponent = Math.min(exponent, e);
  }
  return { step: Number.isFinite(exponent) ? 2 ** exponent : 1, largest };
}

/** f32 has a 24-bit significand: every integer multiple of q up to 2²⁴·q is exactly representable. */
export const F32_SIGNIFICAND_BITS = 24;

/** γₙ = n·u/(1 − n·u), u = 2⁻²⁴: the worst-case relative error of any f32 sum of n + 1 terms. */
export function gamma(n) {
  const u = 2 ** -F32_SIGNIFICAND_BITS;
  return (n * u) / (1 - n * u);
}

/**
 * The error bound of an f32 reduction of `length` terms, each a multiple of `step`, whose absolute
 * values add up to at most `magnitude`. Every partial sum, in any order and with or without fused
 * multiply-add, is then a multiple of `step` no larger than `magnitude`; when magnitude/step ≤ 2²⁴
 * all of them are exact f32 values, so the result must equal the f64 sum exactly (bound 0).
 * Otherwise the classic bound γ_{length}·magnitude (Higham, Accuracy and Stability, §3.1).
 */
export function exactBound(length, step, magnitude) {
  return magnitude / step <= 2 ** F32_SIGNIFICAND_BITS ? 0 : gamma(length) * magnitude;
}

/** The f64 product of row-major m×k and k×n (exact for the benchmark's grid inputs). */
export function matmulReference(a, b, m, k, n) {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i += 1) {
    const row = out.subarray(i * n, (i + 1) * n);
    for (let p = 0; p < k; p += 1) {
      const value = a[i * k + p];
      if (value === 0) continue;
      const offset = p * n;
      for (let j = 0; j < n; j += 1) row[j] += value * b[offset + j];
    }
  }
  return out;
}

/**
 * Checks every element of `out ≈ a·b` (row-major m×k and k×n) against the f64 product within
 * `exactBound(k, step_a·step_b, k·max|a|·max|b|)`: 0 for the benchmark's grid inputs (see
 * `gridValues`), so one wrong element anywhere fails. `reference` (from `matmulReference`) may be
 * passed in, so that a case's contenders share one f64 product.
 * Returns { ok, checked, worst, detail, bound } where worst is the largest error ÷ bound (∞ when
 * the bound is 0 and an element differs).
 */
export function checkMatmul(a, b, out, m, k, n, reference = matmulReference(a, b, m, k, n)) {
  const [qa, qb] = [quantum(a), quantum(b)];
  const bound = exactBound(k, qa.step * qb.step, k * qa.largest * qb.largest);
  let worst = 0;
  let firstBad = null;
  if (out.length !== m * n) return { ok: false, checked: 0, worst: Infinity, detail: `${out.length} values for ${m}×${n}`, bound };
  for (let index = 0; index < m * n; index += 1) {
    const error = Math.abs(out[index] - reference[index]);
    const ratio = error === 0 ? 0 : error / bound;
    if (!(error <= bound) && firstBad === null) firstBad = `out[${Math.floor(index / n)},${index % n}] = ${out[index]}, f64 ${reference[index]}`;
    worst = Math.max(worst, Number.isNaN(ratio) ? Infinity : ratio);
  }
  return { ok: firstBad === null, checked: m * n, worst, detail: firstBad, bound };
}

/** Checks `out = a + b` element by element: the f64 sum rounded once to f32 (within half an ulp). */
export function checkAdd(a, b, out) {
  let firstBad = null;
  let worst = 0;
  for (let i = 0; i < a.length; i += 1) {
    const exact = a[i] + b[i];
    const error = Math.abs(out[i] - exact);
    const bound = 2 ** -24 * Math.abs(exact) + 1e-45;
    worst = Math.max(worst, error / bound);
    if (!(error <= bound) && firstBad === null) firstBad = `out[${i}] = ${out[i]}, f64 ${exact}`;
  }
  return { ok: firstBad === null && out.length === a.length, checked: a.length, worst, detail: firstBad };
}

/**
 * Checks a sum of f32 values against the f64 sum within `exactBound(n, step, Σ|x|)`: 0 for the
 * benchmark's grid inputs (n·max|x|/step ≤ 2²⁴), so dropping, doubling or rounding any one
 * non-zero element fails.
 */
export function checkSum(values, got) {
  let exact = 0;
  let magnitude = 0;
  for (const value of values) {
    exact += value;
    magnitude += Math.abs(value);
  }
  const bound = exactBound(values.length, quantum(values).step, magnitude);
  const error = Math.abs(got - exact);
  const ok = error <= bound;
  const worst = error === 0 ? 0 : error / bound;
  return { ok, checked: 1, worst, detail: ok ? null : `sum ${got}, f64 ${exact} (bound ${bound})`, bound };
}

/** The MLP's inputs and initial parameters: x (batch×inputs), one-hot labels, w1 b1 w2 b2. */
export function mlpData({ batch, inputs, hidden, classes }, seed) {
  const labels = new Float32Array(batch * classes);
  const { uniform } = generator(seed + 5);
  for (let row = 0; row < batch; row += 1) labels[row * classes + Math.floor(uniform() * classes)] = 1;
  return {
    x: randomValues(seed, batch * inputs),
    labels,
    w1: randomValues(seed + 1, inputs * hidden, Math.sqrt(2 / inputs)),
    b1: randomValues(seed + 2, hidden, 0.1),
    w2: randomValues(seed + 3, hidden * classes, Math.sqrt(1 / hidden)),
    b2: randomValues(seed + 4, classes, 0.1),
  };
}

/**
 * One SGD step in f64: h = relu(x·w1 + b1), logits = h·w2 + b2, loss = mean over rows of
 * −Σ labels·log softmax(logits); ∂loss/∂logits = (softmax − labels)/batch, back through w2, the
 * relu mask and w1; p ← p − rate·∂loss/∂p. Returns { loss, w1, b1, w2, b2 } (Float64Arrays).
 */
export function mlpReference(shape, data, rate) {
  const { batch, inputs, hidden, classes } = shape;
  const { x, labels, w1, b1, w2, b2 } = data;
  const pre = new Float64Array(batch * hidden);
  for (let r = 0; r < batch; r += 1) {
    for (let j = 0; j < hidden; j += 1) pre[r * hidden + j] = b1[j];
    for (let p = 0; p < inputs; p += 1) {
      const value = x[r * inputs + p];
      if (value === 0) continue;
      for (let j = 0; j < hidden; j += 1) pre[r * hidden + j] += value * w1[p * hidden + j];
    }
  }
  const act = pre.map((value) => Math.max(value, 0));
  const dLogits = new Float64Array(batch * classes);
  let loss = 0;
  for (let r = 0; r < batch; r += 1) {
    const logits = new Float64Array(classes);
    for (let c = 0; c < classes; c += 1) {
      logits[c] = b2[c];
      for (let j = 0; j < hidden; j += 1) logits[c] += act[r * hidden + j] * w2[j * classes + c];
    }
    const top = Math.max(...logits);
    const norm = logits.reduce((total, value) => total + Math.exp(value - top), 0);
    for (let c = 0; c < classes; c += 1) {
      const logProbability = logits[c] - top - Math.log(norm);
      loss -= (labels[r * classes + c] * logProbability) / batch;
      dLogits[r * classes + c] = (Math.exp(logProbability) - labels[r * classes + c]) / batch;
    }
  }
  const dPre = new Float64Array(batch * hidden);
  for (let r = 0; r < batch; r += 1) {
    for (let j = 0; j < hidden; j += 1) {
      if (pre[r * hidden + j] <= 0) continue;
      let back = 0;
      for (let c = 0; c < classes; c += 1) back += dLogits[r * classes + c] * w2[j * classes + c];
      dPre[r * hidden + j] = back;
    }
  }
  const newW1 = Float64Array.from(w1);
  for (let r = 0; r < batch; r += 1) {
    for (let p = 0; p < inputs; p += 1) {
      const value = x[r * inputs + p];
      for (let j = 0; j < hidden; j += 1) newW1[p * hidden + j] -= rate * value * dPre[r * hidden + j];
    }
  }
  const newB1 = Float64Array.from(b1, (value, j) => value - rate * sumRows(dPre, batch, hidden, j));
  const newW2 = Float64Array.from(w2);
  for (let r = 0; r < batch; r += 1) {
    for (let j = 0; j < hidden; j += 1) {
      for (let c = 0; c < classes; c += 1) newW2[j * classes + c] -= rate * act[r * hidden + j] * dLogits[r * classes + c];
    }
  }
  const newB2 = Float64Array.from(b2, (value, c) => value - rate * sumRows(dLogits, batch, classes, c));
  return { loss, w1: newW1, b1: newB1, w2: newW2, b2: newB2 };
}

function sumRows(values, rows, cols, col) {
  let total = 0;
  for (let r = 0; r < rows; r += 1) total += values[r * cols + col];
  return total;
}

/**
 * Checks one MLP step's loss and updated parameters against `mlpReference`: each value within
 * 1e-5 + 1e-4·|reference| (f32 forward and backward against f64).
 */
export function checkMlp(expected, got) {
  let worst = 0;
  let checked = 0;
  let firstBad = null;
  const compare = (name, reference, values) => {
    for (let i = 0; i < reference.length; i += 1) {
      const bound = 1e-5 + 1e-4 * Math.abs(reference[i]);
      const ratio = Math.abs(values[i] - reference[i]) / bound;
      worst = Math.max(worst, Number.isNaN(ratio) ? Infinity : ratio);
      if (!(ratio <= 1) && firstBad === null) firstBad = `${name}[${i}] = ${values[i]}, f64 ${reference[i]}`;
      checked += 1;
    }
  };
  compare('loss', [expected.loss], [got.loss]);
  for (const name of ['w1', 'b1', 'w2', 'b2']) compare(name, expected[name], got[name]);
  return { ok: firstBad === null, checked, worst, detail: firstBad };
}

/** The tiling of the simulated matmul (src/session/bench.rs): set_cube_tile_shapes([128,128],[64,256],[256,256]). */
export const NPU_TILES = { m: [128, 128], k: [64, 256], n: [256, 256] };

/** Ascend910B2 as DESIGN §3 tabulates it: 24 cube cores, 1.8 GHz, 16×16×16 MACs (8192 FLOP) per cycle. */
export const ASCEND_910B2 = { cubeCores: 24, clockHz: 1.8e9, cubeFlopPerCycle: 2 * 16 * 16 * 16 };

/**
 * The closed form of the tile plan of a size³ bf16 matmul with f32 output (`tile::tiled_matmul`,
 * sizes that the L1 tiles divide): (size/mL1)·(size/nL1) output blocks spread over the cube cores;
 * per block, size/kL1 K blocks of 2 copies in (an mL1×kL1 and a kL1×nL1 bf16 tile) and
 * kL1/kL0 · mL1/mL0 · (1 move of A + nL1/nL0 · (move of B + mmad)) instructions, then 1 copy out
 * of the f32 block. Returns the counts the simulator must report.
 */
export function npuMatmulPlan(size, tiles = NPU_TILES, chip = ASCEND_910B2) {
  const blocks = (size / tiles.m[1]) * (size / tiles.n[1]);
  const kBlocks = size / tiles.k[1];
  const perKBlock = 2 + (tiles.k[1] / tiles.k[0]) * (tiles.m[1] / tiles.m[0]) * (1 + (tiles.n[1] / tiles.n[0]) * 2);
  const instructions = blocks * (kBlocks * perKBlock + 1);
  const bf16 = 2;
  const bytesRead = blocks * kBlocks * (tiles.m[1] * tiles.k[1] + tiles.k[1] * tiles.n[1]) * bf16;
  const flops = 2 * size ** 3;
  const cores = Math.min(blocks, chip.cubeCores);
  // No schedule beats the cube roofline: every FLOP on the busiest core's cube at its peak rate.
  const busiestBlocks = Math.ceil(blocks / chip.cubeCores);
  const minimumUs = ((busiestBlocks * kBlocks * 2 * tiles.m[1] * tiles.k[1] * tiles.n[1]) / chip.cubeFlopPerCycle / chip.clockHz) * 1e6;
  return { instructions, events: instructions, bytesRead, bytesWritten: size * size * 4, flops, cores, minimumUs };
}

/**
 * Checks a simulated run `[µs, events, cores, bytes read, bytes written, FLOPs, instructions]`
 * (Playground.benchNpuMatmul) against `npuMatmulPlan(size)`: every count equal, the time at or
 * above the cube roofline of the busiest core.
 */
export function checkNpu(run, size) {
  const [simulatedUs, events, cores, bytesRead, bytesWritten, flops, instructions] = run;
  const plan = npuMatmulPlan(size);
  const got = { events, cores, bytesRead, bytesWritten, flops, instructions };
  const wrong = Object.entries(got).filter(([key, value]) => value !== plan[key]).map(([key, value]) => `${key} ${value} ≠ ${plan[key]}`);
  if (!(simulatedUs >= plan.minimumUs)) wrong.push(`${simulatedUs} µs < the cube roofline ${plan.minimumUs.toFixed(1)} µs`);
  return { ok: wrong.length === 0, checked: 7, worst: wrong.length, detail: wrong.length ? wrong.join('; ') : null, simulatedUs, events, cores };
}
