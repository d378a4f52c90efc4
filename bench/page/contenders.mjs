// The contenders of the benchmark, each loaded from node_modules or the repository's wasm builds,
// and one function per case that returns its contenders as { name, call, check, prepare? }:
//   call(index)  one timed operation (may return a promise: onnxruntime-web is asynchronous)
//   check()      runs it once on the case's inputs and compares with the f64 reference
//   prepare(n)   untimed set-up before n timed calls (the fresh B tensors of tfjs)
import { checkMatmul, checkMlp, checkNpu, gridValues, matmulReference, mlpData, mlpReference, npuMatmulPlan, roundToBf16 } from './reference.mjs';

/** Loads a TileLab wasm build (pkg/ or pkg-relaxed/) and returns its `Playground` class. */
export async function loadTileLab(directory) {
  const module = await import(`/${directory}/tilelab.js`);
  await module.default();
  new module.Playground(); // installs the panic hook
  return module.Playground;
}

/** tfjs-core with the wasm backend (SIMD), forced to one thread before the backend starts. */
export async function loadTfjs() {
  const { tf, wasm } = await import('/bench/page/build/tfjs.mjs');
  wasm.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
  wasm.setThreadsCount(1);
  // The page is cross-origin isolated (for a 5 µs timer); keep tfjs on its single-threaded SIMD
  // binary rather than the pthread one, so no worker threads run beside the timed one.
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not start');
  await tf.ready();
  return {
    tf,
    info: {
      version: tf.version_core,
      backend: tf.getBackend(),
      simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
      threads: wasm.getThreadsCount(),
    },
  };
}

/** onnxruntime-web, wasm execution provider, one thread, and the MatMul session. */
export async function loadOrt() {
  const ort = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  const session = await ort.InferenceSession.create('/bench/models/matmul.onnx', { executionProviders: ['wasm'] });
  return { ort, session, info: { version: ort.env.versions?.web ?? 'unknown', threads: ort.env.wasm.numThreads } };
}

/** f32 matmul size³ (and bf16 storage) for every TileLab build, tfjs (fresh and cached B) and ORT. */
export function matmulContenders({ builds, tfjs, ort }, size, { bf16 = false, tfjsFresh = true } = {}) {
  const [m, k, n] = [size, size, size];
  // Inputs on the grid 2⁻⁶ in [−1, 1]: every partial sum of a dot product is then an exact f32
  // value (k·2¹² ≤ 2²⁴), so each contender's result must equal the f64 product in every element
  // (reference.mjs `exactBound`). The values are exact in bf16 as well.
  const a = gridValues(11, m * k, 6);
  const b = gridValues(12, k * n, 6);
  const reference = matmulReference(a, b, m, k, n);
  const checkProduct = (out) => checkMatmul(a, b, out, m, k, n, reference);
  const list = [];
  // Every case has its own tensor names in the (per-build) workspace: cases are set up together.
  const [na, nb, nc] = [`mm${size}.a`, `mm${size}.b`, `mm${size}.c`];
  const [na16, nb16, nc16] = [`mm${size}.a16`, `mm${size}.b16`, `mm${size}.c16`];
  for (const [label, Playground] of Object.entries(builds)) {
    Playground.benchLoad(na, a, [m, k], 'f32');
    Playground.benchLoad(nb, b, [k, n], 'f32');
    list.push({
      name: `tilelab-${label}`,
      call: () => Playground.benchMatmul(na, nb, nc, undefined),
      check: () => (Playground.benchMatmul(na, nb, nc, undefined), checkProduct(Playground.benchRead(nc))),
    });
    if (bf16) {
      Playground.benchLoad(na16, a, [m, k], 'bf16');
      Playground.benchLoad(nb16, b, [k, n], 'bf16');
      const [a16, b16] = [roundToBf16(a), roundToBf16(b)];
      if (a16.some((value, i) => value !== a[i]) || b16.some((value, i) => value !== b[i])) throw new Error('grid inputs must be exact in bf16');
      list.push({
        name: `tilelab-${label}-bf16`,
        call: () => Playground.benchMatmul(na16, nb16, nc16, 'f32'),
        check: () => (Playground.benchMatmul(na16, nb16, nc16, 'f32'), checkProduct(Playground.benchRead(nc16))),
      });
    }
  }
  if (tfjs) {
    const { tf } = tfjs;
    const [ta, tb] = [tf.tensor2d(a, [m, k]), tf.tensor2d(b, [k, n])];
    const product = (left, right) => {
      const out = tf.matMul(left, right);
      const values = out.dataSync();
      out.dispose();
      return values;
    };
    list.push({ name: 'tfjs-cached', call: () => tf.matMul(ta, tb).dispose(), check: () => checkProduct(product(ta, tb)) });
    if (tfjsFresh) {
      let fresh = [];
      list.push({
        name: 'tfjs-fresh',
        // A B tensor never multiplied before, so XNNPACK packs it inside the timed call.
        prepare: (count) => {
          fresh.forEach((tensor) => tensor.dispose());
          fresh = Array.from({ length: count }, () => tf.tensor2d(b, [k, n]));
        },
        call: (index) => {
          tf.matMul(ta, fresh[index]).dispose();
          fresh[index].dispose();
        },
        check: () => {
          const once = tf.tensor2d(b, [k, n]);
          const result = checkProduct(product(ta, once));
          once.dispose();
          return result;
        },
      });
    }
  }
  if (ort) {
    const inputs = { A: new ort.ort.Tensor('float32', a, [m, k]), B: new ort.ort.Tensor('float32', b, [k, n]) };
    list.push({
      name: 'ort',
      call: () => ort.session.run(inputs),
      check: async () => checkProduct((await ort.session.run(inputs)).Y.data),
    });
  }
  return list;
}

/** One SGD training step of the MLP `shape` (batch, inputs, hidden, classes), loss read back. */
export function mlpContenders({ builds, tfjs }, shape, rate = 0.05) {
  const data = mlpData(shape, 41);
  const expected = mlpReference(shape, data, rate);
  const { batch, inputs, hidden, classes } = shape;
  const shapes = { x: [batch, inputs], labels: [batch, classes], w1: [inputs, hidden], b1: [hidden], w2: [hidden, classes], b2: [classes] };
  const list = Object.entries(builds).map(([label, Playground]) => {
    for (const [name, values] of Object.entries(data)) Playground.benchLoad(name, values, shapes[name], 'f32');
    return {
      name: `tilelab-${label}`,
      call: () => Playground.benchMlpStep('x', 'labels', rate),
      check: () => {
        const loss = Playground.benchMlpStep('x', 'labels', rate);
        const got = { loss, ...Object.fromEntries(['w1', 'b1', 'w2', 'b2'].map((name) => [name, Playground.benchRead(name)])) };
        return checkMlp(expected, got);
      },
    };
  });
  list.push(...tfjsMlpContenders(tfjs.tf, data, shapes, rate, expected));
  return list;
}

/**
 * tfjs's two idiomatic forms of the same SGD step (figure 6 and 6b):
 *  - `tfjs-transpose`: the backward written out with explicit `tf.transpose` before each matMul.
 *    tfjs's own matMul gradient multiplies with `transposeA`/`transposeB` flags, which
 *    tfjs-backend-wasm 4.22 runs as a scalar loop outside XNNPACK; an explicit transpose keeps
 *    every product on XNNPACK's packed kernel. This is tfjs at its fastest, the row figure 6 uses.
 *  - `tfjs-grads`: `tf.grads` over the loss function (tfjs's automatic differentiation, so the
 *    transposed-flag matMuls above), then the same update.
 * Both read the loss back (dataSync), as TileLab's step returns it.
 */
function tfjsMlpContenders(tf, data, shapes, rate, expected) {
  const batch = shapes.x[0];
  const [x, labels] = [tf.tensor2d(data.x, shapes.x), tf.tensor2d(data.labels, shapes.labels)];
  const names = ['w1', 'b1', 'w2', 'b2'];
  const variables = (suffix) => names.map((name) => tf.variable(tf.tensor(data[name], shapes[name]), true, `bench_${name}_${suffix}`));
  const lossOf = (w1, b1, w2, b2) => {
    const logits = tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(x, w1), b1)), w2), b2);
    return tf.div(tf.neg(tf.sum(tf.mul(labels, tf.logSoftmax(logits)))), batch);
  };
  const readLoss = (loss) => {
    const value = loss.dataSync()[0];
    loss.dispose();
    return value;
  };
  const update = (parameters, gradients) => parameters.forEach((parameter, i) => parameter.assign(tf.sub(parameter, tf.mul(gradients[i], rate))));

  const manual = variables('transpose');
  const transposeStep = () => {
    const loss = tf.tidy(() => {
      const [w1, b1, w2, b2] = manual;
      const pre = tf.add(tf.matMul(x, w1), b1);
      const hidden = tf.relu(pre);
      const logits = tf.add(tf.matMul(hidden, w2), b2);
      const logProbabilities = tf.logSoftmax(logits);
      // ∂loss/∂logits = (softmax − labels)/batch; back through w2, the relu mask and w1.
      const dLogits = tf.div(tf.sub(tf.exp(logProbabilities), labels), batch);
      const dPre = tf.mul(tf.matMul(dLogits, tf.transpose(w2)), tf.step(pre));
      update(manual, [tf.matMul(tf.transpose(x), dPre), tf.sum(dPre, 0), tf.matMul(tf.transpose(hidden), dLogits), tf.sum(dLogits, 0)]);
      return tf.div(tf.neg(tf.sum(tf.mul(labels, logProbabilities))), batch);
    });
    return readLoss(loss);
  };

  const automatic = variables('grads');
  const gradientsOf = tf.grads(lossOf);
  const gradsStep = () => {
    const loss = tf.tidy(() => {
      const gradients = gradientsOf(automatic);
      const value = lossOf(...automatic);
      update(automatic, gradients);
      return value;
    });
    return readLoss(loss);
  };

  const contender = (name, step, parameters) => ({
    name,
    call: step,
    check: () => {
      const loss = step();
      const got = { loss, ...Object.fromEntries(parameters.map((parameter, i) => [names[i], parameter.dataSync()])) };
      return checkMlp(expected, got);
    },
  });
  return [contender('tfjs-transpose', transposeStep, manual), contender('tfjs-grads', gradsStep, automatic)];
}

/**
 * The simulator alone on the same plan, built once beforehand: simulated events per second in the
 * page (issue 17: ≥ 5 M). Checked by its event count against the plan's closed form.
 */
export function npuSimulateContenders({ builds }, size) {
  return Object.entries(builds).map(([label, Playground]) => {
    Playground.benchNpuPlan('Ascend910B2', size);
    return {
      name: `tilelab-${label}`,
      call: () => Playground.benchNpuSimulate(),
      check: () => {
        const events = Playground.benchNpuSimulate();
        const expected = npuMatmulPlan(size).events;
        return { ok: events === expected, checked: 1, worst: events === expected ? 0 : 1, detail: events === expected ? null : `${events} events ≠ ${expected}`, events };
      },
    };
  });
}

/**
 * The simulator alone on another kernel's plan, built once beforehand (`kernel`: 'swiglu_b', the
 * SwiGLU backward b kernel of examples/10 at `size` rows): simulated events per second in the page
 * (issue 17: ≥ 5 M). Checked against the native run's events and cycles (`expected`: the line of
 * tests/npu/engine_identity.golden that the driver read).
 */
export function npuKernelContenders({ builds }, kernel, size, expected) {
  return Object.entries(builds).map(([label, Playground]) => {
    Playground.benchNpuPlanKernel(kernel, 'Ascend910B2', size);
    return {
      name: `tilelab-${label}`,
      call: () => Playground.benchNpuSimulateKernel(kernel),
      check: () => {
        const [events, cycles] = Playground.benchNpuSimulateKernel(kernel);
        const ok = expected != null && events === expected.events && cycles === expected.cycles;
        const detail = ok ? null : `${events} events, ${cycles} cycles ≠ the native run's ${JSON.stringify(expected)}`;
        return { ok, checked: 1, worst: ok ? 0 : 1, detail, events };
      },
    };
  });
}

/** The simulated 4096³ bf16 matmul on Ascend910B2 (build the tile plan + simulate). */
export function npuContenders({ builds }, size) {
  return Object.entries(builds).map(([label, Playground]) => ({
    name: `tilelab-${label}`,
    call: () => Playground.benchNpuMatmul('Ascend910B2', size),
    // The plan's counts against their closed form, the time against the cube roofline.
    check: () => checkNpu(Playground.benchNpuMatmul('Ascend910B2', size), size),
  }));
}
