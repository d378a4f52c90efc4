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

/** Rows of the output the matmul check recomputes: all of them for small sizes, else 16 spread out. */
export function checkedRows(m) {
  if (m <= 64) return Array.from({ length: m }, (_, i) => i);
  return Array.from({ length: 16 }, (_, i) => Math.min(m - 1, Math.floor((i * (m - 1)) / 15)));
}

/**
 * Checks `out ≈ a·b` (row-major m×k and k×n) on `checkedRows(m)`: each value within the f32
 * dot-product bound (k+2)·2⁻²³·Σₚ|a b| of the f64 sum (any summation order, fused or not).
 * Returns { ok, checked, worst } where worst is the largest error ÷ bound.
 */
export function checkMatmul(a, b, out, m, k, n) {
  let worst = 0;
  let checked = 0;
  let firstBad = null;
  for (const i of checkedRows(m)) {
    for (let j = 0; j < n; j += 1) {
      let exact = 0;
      let magnitude = 0;
      for (let p = 0; p < k; p += 1) {
        const term = a[i * k + p] * b[p * n + j];
        exact += term;
        magnitude += Math.abs(term);
      }
      const bound = (k + 2) * 2 ** -23 * magnitude + 1e-30;
      const ratio = Math.abs(out[i * n + j] - exact) / bound;
      if (!(ratio <= 1) && firstBad === null) firstBad = `out[${i},${j}] = ${out[i * n + j]}, f64 ${exact}`;
      worst = Math.max(worst, Number.isNaN(ratio) ? Infinity : ratio);
      checked += 1;
    }
  }
  return { ok: firstBad === null && out.length === m * n, checked, worst, detail: firstBad };
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
 * Checks a sum of f32 values against the f64 sum: within 1e-5·Σ|x|, the allowance of an f32
 * accumulation in blocks (the inputs are zero-mean, so the partial sums stay small).
 */
export function checkSum(values, got) {
  let exact = 0;
  let magnitude = 0;
  for (const value of values) {
    exact += value;
    magnitude += Math.abs(value);
  }
  const bound = 1e-5 * magnitude;
  const error = Math.abs(got - exact);
  return { ok: error <= bound, checked: 1, worst: error / bound, detail: error <= bound ? null : `sum ${got}, f64 ${exact}` };
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
