// The prose of docs/benchmarks.md, generated from one run's results (scripts/bench-run.mjs): every
// number below is computed from that run's raw times, clock and load, so the text cannot drift
// from the table above it. Statements that are not measurements (the CPU's issue ports, the
// cache sizes) are stated as such, with where they come from.
import { figuresFor, matmulRates, spread } from './bench-figures.mjs';
import { CALIBRATION_SIZE, RELAXED_MARGIN } from '../www/engine/build-choice.js';

/** FP ops the 4 × 8 simd128 micro-kernel issues per 64 FLOP (8 f32x4.mul + 8 f32x4.add). */
const SIMD128_UOPS_PER_64_FLOP = 16;

/**
 * The 128-bit FP issue resources of the run's CPU family (properties of the CPU, not measured
 * here). Intel cores: mul and add on 3 ports between them (2 mul/FMA ports + 2 add ports, one
 * shared). AMD Zen (families 23, 25, 26): 4 FP pipes, 2 for mul/FMA and 2 for add, so a multiply
 * and an add issue side by side. `fma` is the pipes a fused multiply-add can use on both.
 */
export function fpPorts(environment) {
  const family = Number(/family (\d+)/.exec(environment.cpuId ?? '')?.[1]);
  if (/AMD/i.test(environment.cpu ?? '') || [23, 25, 26].includes(family)) {
    return { mulAdd: 4, vector: 4, fma: 2, text: '2 multiply/FMA pipes and 2 add pipes on this AMD core family' };
  }
  return { mulAdd: 3, vector: 3, fma: 2, text: '3 ports for them on this core family (2 mul, 2 add, one shared)' };
}

const median = (values) => spread(values).median;
const fixed = (value, digits = 1) => value.toFixed(digits);
const ratioText = (figure) => `${fixed(figure.median, 2)}× (rounds ${fixed(figure.min, 2)}–${fixed(figure.max, 2)}×)`;

/** The figure `id` of `build`, or null when this run did not measure it. */
function figureOf(figures, build, id) {
  return (figures[build] ?? []).find((figure) => figure.id === id) ?? null;
}

/** A verdict that says pass or miss as the table does, from the same numbers. */
const verdict = (figure) => (figure.pass ? 'passes' : 'misses');

/**
 * Why the in-cache rows of figures 9 miss, when they do: each op against the plain wasm loop with
 * its streams (bench/page/wasm-loops.mjs), timed in the same rounds. Runs without that reference
 * (from before it was added) say nothing.
 */
function inCacheLines(raw, missed, userBuild, time) {
  const count = raw.config.vector;
  const rows = ['add', 'mul', 'sum']
    .map((op) => [op, missed.find((figure) => figure.title.startsWith(`${op} over ${count} `)), time(`${op}/tilelab-${userBuild}`), time(`${op}/wasm loop`)])
    .filter(([, figure, ms, loop]) => figure && ms && loop);
  const copy = time('copy/memory.copy');
  if (rows.length === 0 || !copy) return [];
  const bytes = { add: 12, mul: 12, sum: 4 };
  const gbps = (op, ms) => (bytes[op] * count) / (ms / 1000) / 1e9;
  const copyGbps = (8 * count) / (copy / 1000) / 1e9;
  const parts = rows.map(
    ([op, , ms, loop]) =>
      `${op} ${fixed(gbps(op, ms))} GB/s against the loop's ${fixed(gbps(op, loop))} (${fixed((100 * loop) / ms)}% of it; ` +
      `the loop itself ${fixed((100 * gbps(op, loop)) / copyGbps)}% of \`memory.copy\`'s ${fixed(copyGbps)})`,
  );
  const reachable = rows.filter(([op, , , loop]) => gbps(op, loop) < 0.9 * copyGbps).map(([op]) => op);
  return [
    `In cache (${count} f32, ${fixed((4 * count) / 2 ** 20, 0)} MiB per array): each missed row against a plain wasm loop with the ` +
      'same streams and nothing else (bench/page/wasm-loops.mjs: f32x4 loads, the op, ordinary stores, 64 bytes per ' +
      `iteration), timed in the same rounds, ${userBuild} build: ${parts.join('; ')}.` +
      (reachable.length > 0
        ? ` For ${reachable.join(' and ')} even that loop, which does nothing but the op's loads, arithmetic and stores, stays ` +
          'below 90% of the copy here: on this machine the target lies beyond the plainest wasm code with those streams.'
        : ''),
    '',
  ];
}

/**
 * Which build a user of the page gets here, and why: the page's start-up calibration
 * (www/engine/build-choice.js) as bench/page/bench.mjs ran it, held against figure 4. Runs from
 * before the page recorded its choice say what the worker did then (relaxed wherever it validates).
 */
function buildChoiceText(raw, figures, environment) {
  const validates = `\`WebAssembly.validate\` accepts a \`f32x4.relaxed_madd\` module (${environment.browser}: ${raw.relaxed ? 'accepted' : 'refused'})`;
  const choice = raw.buildChoice;
  if (!choice) {
    const userBuild = raw.info.tilelab.includes('relaxed') ? 'relaxed' : 'simd128';
    return {
      userBuild,
      text: `Which build counts: the page's worker loaded the relaxed-simd build wherever ${validates}, so the ${userBuild} figures are what a user of the page got here.`,
    };
  }
  const userBuild = choice.build;
  if (!choice.samples) {
    return { userBuild, text: `Which build counts: the simd128 build, the only one this run loaded (${validates}); its figures are what a user of the page gets here.` };
  }
  const simd = median(choice.samples.simd128);
  const relaxed = median(choice.samples.relaxed);
  let text =
    `Which build counts: where ${validates}, the page's worker times the same ${CALIBRATION_SIZE}² f32 matmul in both builds at start-up, ` +
    `${choice.samples.simd128.length} calls each, alternating, and loads the faster one — the relaxed build only when it is at least ` +
    `${fixed((RELAXED_MARGIN - 1) * 100, 0)}% faster — and keeps the choice per browser (www/engine/build-choice.js). That calibration, run in this ` +
    `page before the rounds: simd128 ${fixed(simd, 2)} ms, relaxed ${fixed(relaxed, 2)} ms per call (medians; ${fixed(simd / relaxed, 2)}×), so the ` +
    `page loads the ${userBuild} build here and the ${userBuild} figures are what a user gets.`;
  const four = figureOf(figures, 'relaxed', '4');
  if (four) {
    const slower = (userBuild === 'simd128' && four.median > RELAXED_MARGIN) || (userBuild === 'relaxed' && four.median < 1 / RELAXED_MARGIN);
    text += slower
      ? ` Figure 4 (${raw.config.matmulSmall}³ over all rounds) disagrees: relaxed ÷ simd128 is ${ratioText(four)}, so here the calibration picked the slower build.`
      : ` Figure 4 (${raw.config.matmulSmall}³ over all rounds), relaxed ÷ simd128 ${ratioText(four)}, agrees: the page does not load the slower build here` +
        (four.pass ? '.' : `, though figure 4 misses its ${fixed(four.target, 1)}× target.`);
  }
  return { userBuild, text };
}

/** The analysis section as Markdown lines. */
export function analysisLines(results) {
  const { raw, environment } = results;
  const figures = results.figures ?? Object.fromEntries(raw.info.tilelab.map((build) => [build, figuresFor(raw, build)]));
  const rates = matmulRates(raw);
  const clock = environment.clockHz;
  const time = (key) => (raw.times[key] ? median(raw.times[key]) : null);
  const lines = [];
  const push = (text = '') => lines.push(text);
  push('## Analysis of this run (generated from the numbers above by scripts/bench-analysis.mjs)');
  push();
  const builds = raw.info.tilelab;
  const { userBuild, text } = buildChoiceText(raw, figures, environment);
  push(text);
  push();

  const size = raw.config.matmulSmall;
  const ports = fpPorts(environment);
  const ceiling = (64 / (SIMD128_UOPS_PER_64_FLOP / ports.mulAdd));
  for (const build of builds) {
    const key = `matmulSmall/tilelab-${build}`;
    if (!rates[key]) continue;
    const perCycle = (rates[key] * 1e9) / clock;
    const three = figureOf(figures, build, '3');
    const one = figureOf(figures, build, '1');
    const cached = figureOf(figures, build, '1c');
    let text = `**Matmul ${size}³, ${build} build.** ${fixed(rates[key])} GFLOP/s at the measured ${fixed(clock / 1e9, 2)} GHz: ` +
      `${fixed(perCycle, 2)} FLOP/cycle`;
    if (build === 'simd128') {
      text += `. Its 4 × 8 micro-kernel issues ${SIMD128_UOPS_PER_64_FLOP} FP µops (8 f32x4.mul, 8 f32x4.add) per 64 FLOP; ` +
        `with ${ports.text}, a property of the CPU not measured here, the ` +
        `ceiling is ${fixed(ceiling)} FLOP/cycle, of which this is ${fixed((100 * perCycle) / ceiling, 0)}%.`;
      text += ceiling < 16
        ? ` That ceiling is ${fixed((100 * ceiling) / 16, 0)}% of the 16 FLOP/cycle of figure 3, so without fused multiply-add (the bit-exact build ` +
          'multiplies, then adds) its 75% target asks for every issue slot of those ports, with no room for loads, packing or ' +
          'loop control. Measured outside this run on an Intel Xeon (the sweep noted in src/tensor/simd/wasm.rs): the micro-kernel alone, on ' +
          'panels that stay in L1, reaches about 46 GFLOP/s, 11.2 FLOP/cycle; the rest is packing and the A panels streamed from L2'
        : ' Multiply and add issue on separate pipes here, so the bit-exact build has the same 16 FLOP/cycle ceiling as fused ' +
          'multiply-adds on the 2 FMA pipes: the relaxed build cannot be much faster at this size';
    } else {
      text += '. Its 3 × 12 micro-kernel issues 9 fused multiply-adds per step (8 per 64 FLOP; two FMA ports: a 16 FLOP/cycle ceiling, ' +
        `of which this is ${fixed((100 * perCycle) / 16, 0)}%)`;
    }
    if (three) text += `; figure 3 (fraction of 16 FLOP/cycle) is ${fixed(100 * three.median)}% and ${verdict(three)} its ${100 * three.target}% target`;
    text += '.';
    const tfjsCached = rates['matmulSmall/tfjs-cached'];
    if (one && cached && tfjsCached) {
      text += ` tfjs-wasm (XNNPACK, simd128: its ${raw.info.tfjs.version} binary holds no relaxed_madd) reaches ${fixed(tfjsCached)} GFLOP/s with a cached B` +
        ` and ${fixed(rates['matmulSmall/tfjs-fresh'])} with a fresh one; figure 1 is ${ratioText(one)} and ${verdict(one)}, ` +
        `figure 1c ${ratioText(cached)} and ${verdict(cached)}. 1.3× over the cached peer would need ${fixed(1.3 * tfjsCached)} GFLOP/s ` +
        `(${fixed((1.3 * tfjsCached * 1e9) / clock, 2)} FLOP/cycle).`;
    }
    push(text);
    push();
  }
  const large = raw.config.matmulLarge;
  const ortLarge = rates['matmulLarge/ort'];
  if (ortLarge) {
    const parts = builds
      .map((build) => [build, figureOf(figures, build, '2'), rates[`matmulLarge/tilelab-${build}`]])
      .filter(([, figure, rate]) => figure && rate)
      .map(([build, figure, rate]) => `the ${build} build ${fixed(rate)} GFLOP/s, figure 2 ${ratioText(figure)}, ${verdict(figure)}`);
    push(`**Matmul ${large}³ (figure 2).** onnxruntime-web ${raw.info.ort.version} reaches ${fixed(ortLarge)} GFLOP/s; ${parts.join('; ')}.`);
    push();
  }

  const vector = raw.config.vector;
  const addKey = `add/tilelab-${userBuild}`;
  if (time(addKey) && time('add/tfjs')) {
    const bytes = 3 * 4 * vector;
    const gbps = (ms) => bytes / (ms / 1000) / 1e9;
    const five = figureOf(figures, userBuild, '5a');
    push(
      `**Add over ${vector} f32 (figure 5a).** Three ${fixed((4 * vector) / 2 ** 20, 0)} MiB arrays: an add reads two and writes one, ` +
        `${fixed(bytes / 2 ** 20, 0)} MiB of traffic (not counting the read for ownership of the output). TileLab's ` +
        `${fixed(time(addKey), 3)} ms is ${fixed(gbps(time(addKey)))} GB/s, tfjs's ${fixed(time('add/tfjs'), 3)} ms ` +
        `${fixed(gbps(time('add/tfjs')))} GB/s: both are streaming memory, and the ratio ${five ? ratioText(five) : ''} ` +
        `${five ? verdict(five) : ''} the 1.5× target, which would need ${fixed(time('add/tfjs') / 1.5, 3)} ms ` +
        `(${fixed(gbps(time('add/tfjs') / 1.5))} GB/s from one core).`,
    );
    push();
  }
  const sumKey = `sum/tilelab-${userBuild}`;
  const sumFigure = figureOf(figures, userBuild, '5b');
  if (time(sumKey) && time('sum/tfjs') && sumFigure) {
    push(
      `**Sum over ${vector} f32 (figure 5b).** TileLab ${fixed(time(sumKey), 3)} ms (${fixed((4 * vector) / (time(sumKey) / 1000) / 1e9)} GB/s read), ` +
        `tfjs ${fixed(time('sum/tfjs'), 3)} ms: ${ratioText(sumFigure)}, ${verdict(sumFigure)} the 4× target.`,
    );
    push();
  }
  const bandwidth = (figures[userBuild] ?? []).filter((figure) => figure.fraction);
  if (bandwidth.length > 0) {
    const missed = bandwidth.filter((figure) => !figure.pass);
    push(
      `**Memory-bound ops against memory.copy (figures ${bandwidth[0].id}–${bandwidth.at(-1).id}).** Each op's bytes per second ` +
        '(f32 reads plus writes) over those of a wasm `memory.copy` of the same n·4 bytes timed in the same round, the ' +
        `${userBuild} build: ${bandwidth.map((figure) => `${figure.title.split(':')[0]} ${fixed(100 * figure.median)}%`).join(', ')}. ` +
        (missed.length === 0
          ? `Every one reaches the ${100 * bandwidth[0].target}% target.`
          : `${missed.length} of ${bandwidth.length} miss the ${100 * bandwidth[0].target}% target: ${missed.map((figure) => figure.id).join(', ')}.`),
    );
    push();
    // Why the misses: exp's arithmetic per element against the measured clock; the large add/mul
    // against the best store stream wasm code can issue (the loop copy, which pays write-allocate).
    const cyclesPerElement = (ms, count) => ((ms / 1000) * clock) / count;
    const loopLarge = time('copyLarge/wasm loop copy');
    const copyLarge = time('copyLarge/memory.copy');
    const exp = ['', 'Large']
      .map((suffix) => [suffix, time(`exp${suffix}/tilelab-${userBuild}`), time(`copy${suffix}/memory.copy`), suffix ? raw.config.vectorLarge : vector])
      .filter(([, ms, copy]) => ms && copy);
    const expMissed = exp.filter(([suffix]) => missed.some((figure) => figure.title.startsWith(`exp over ${suffix ? raw.config.vectorLarge : vector}`)));
    if (expMissed.length > 0) {
      const cycles = exp.map(([, ms, copy, count]) => `${fixed(cyclesPerElement(ms, count), 2)} cycles per element at ${count} (the copy ${fixed(cyclesPerElement(copy, count), 2)})`);
      push(
        `Exp is arithmetic-bound: ${cycles.join(', ')} at the measured ${fixed(clock / 1e9, 2)} GHz. Its f32x4 kernel ` +
          '(src/tensor/simd/wasm_exp.rs: range reduction by n·ln2 in two parts, a degree-6 polynomial, 2ⁿ added to the exponent ' +
          'field, one range check per 32 values) issues 23–25 vector arithmetic instructions per 4 values in the simd128 build ' +
          '(counted in V8\'s code for it) and about 15 in the relaxed one, 9 of them multiplies or fused multiply-adds, on the ' +
          `${ports.vector} vector ports of this core family, ${ports.fma} of which multiply (a property of the CPU, not measured here): at least ` +
          `${fixed(24 / 4 / ports.vector)} and about ${fixed(Math.max(15 / 4 / ports.vector, 9 / 4 / ports.fma))} cycles per value. A degree-6 ` +
          'polynomial is the least that keeps the 1-ulp bound the tests hold it to (degree 5 alone errs by 0.6–0.9 ulp before ' +
          'rounding), and wasm has no gather for a table, so the in-cache rows cannot reach a copy that moves a value in about one cycle.' +
          (loopLarge && copyLarge
            ? ' Out of cache its ordinary stores pay write-allocate too (the wasm loop copy of the same bytes takes ' +
              `${fixed(cyclesPerElement(loopLarge, raw.config.vectorLarge), 2)} cycles per element, ${fixed((100 * copyLarge) / loopLarge)}% of \`memory.copy\`; ` +
              'see below), and its arithmetic and that stream add up rather than overlap.'
            : ''),
      );
      push();
    }
    // The large add and mul of every build (the builds run the same add loop).
    const count = raw.config.vectorLarge;
    const largeRows = builds.flatMap((build) =>
      ['add', 'mul'].map((op) => [build, op, (figures[build] ?? []).find((figure) => figure.fraction && figure.title.startsWith(`${op} over ${count}`))]),
    ).filter(([, , figure]) => figure);
    if (largeRows.some(([, , figure]) => !figure.pass)) {
      const gbps = (bytes, ms) => (bytes * count) / (ms / 1000) / 1e9;
      const rows = largeRows.map(([build, op, figure]) => `${op} ${fixed(100 * figure.median)}% (${build})`).join(', ');
      const addTimes = builds.map((build) => time(`addLarge/tilelab-${build}`)).filter(Boolean);
      const measured = loopLarge && copyLarge && addTimes.length > 0
        ? ` A plain wasm loop of f32x4 loads and stores (bench/page/wasm-loops.mjs \`loopCopy\`) copies the same bytes at ` +
          `${fixed(gbps(8, loopLarge))} GB/s, ${fixed((100 * copyLarge) / loopLarge)}% of \`memory.copy\`'s ${fixed(gbps(8, copyLarge))}: ` +
          'its stores read each line before writing it (write-allocate), where the engine\'s memmove streams large blocks with ' +
          'non-temporal stores, which wasm cannot issue. Counting that read, the add moves 16 bytes per element: ' +
          `${addTimes.map((ms) => `${fixed(gbps(16, ms))} GB/s`).join(' and ')} of traffic against the loop copy's ` +
          `${fixed(gbps(12, loopLarge))} (12 bytes per element): that simple loop is a floor of what wasm stores reach, not a ceiling.`
        : '';
      push(
        `Add and mul over ${count} f32 (${fixed((4 * count) / 2 ** 20, 0)} MiB per array, beyond the caches): ${rows} of the ` +
          '`memory.copy` bandwidth. Both builds run the same add and mul loop (Tensor::binary\'s same-shape f32 path, compiled ' +
          'alike), so a difference between builds in the same rounds is not the kernel: it comes from the instance (its own wasm ' +
          'memory, allocated and touched in a different order), which this run does not resolve further.' + measured,
      );
      push();
    }
    lines.push(...inCacheLines(raw, missed, userBuild, time));
  }
  const mlpKey = `mlp/tilelab-${userBuild}`;
  if (time(mlpKey)) {
    const forms = [['mlp/tfjs-transpose', 'explicit transposes', '6'], ['mlp/tfjs-grads', 'tf.grads', '6b']]
      .filter(([key]) => time(key))
      .map(([key, form, id]) => {
        const figure = figureOf(figures, userBuild, id);
        return `${form} ${fixed(time(key), 2)} ms (figure ${id}: ${figure ? `${ratioText(figure)}, ${verdict(figure)}` : 'not computed'})`;
      });
    const legacy = time('mlp/tfjs') ? ` This run predates the two forms: its only tfjs row is optimizer.minimize, ${fixed(time('mlp/tfjs'), 2)} ms, the slow form (see Method).` : '';
    push(
      `**MLP step (figures 6, 6b).** TileLab ${fixed(time(mlpKey), 2)} ms per step; tfjs-wasm ${forms.length ? forms.join(', ') : 'not measured in its fast forms'}.${legacy}`,
    );
    push();
  }
  const npuKey = `npu/tilelab-${userBuild}`;
  if (time(npuKey)) {
    const alone = figureOf(figures, userBuild, '8b');
    const swiglu = figureOf(figures, userBuild, '8c');
    push(
      `**Simulated NPU matmul (figures 8, 8b, 8c).** Planning and simulating a ${raw.config.npu}³ bf16 matmul on Ascend910B2 takes ${fixed(time(npuKey))} ms in the page` +
        (alone ? `; the simulator alone on the planned kernel runs ${fixed(alone.median, 2)} M simulated events per second (${verdict(alone)} the ${alone.target} M target): per event it reads a prepared instruction record, walks the copy's rows through the L2 line table (one entry per 512 B line: 128–256 per copy of this kernel) and writes a trace event.` : '.') +
        (swiglu
          ? ` On the SwiGLU backward b kernel (figure 8c) it runs ${fixed(swiglu.median, 2)} M events per second (${verdict(swiglu)} the ${swiglu.target} M target): its 48 vector cores load and store [128, 128] tiles of rows 2 or 4 KiB apart, a box of 128 rows, each row one or two 512 B lines of the L2, which evicts throughout (the ${raw.config.swiglu} × 1024 BF16 tensors outgrow it). The L2 keeps such a box of lines as one entry (src/npu/l2_box_slots.rs): accessing it again, or first while none of its lines is resident, costs no walk of its lines, but a first access still reads and marks the 128 line entries of the box, cold in the host's cache; the rest of the time is the engine's own per event (preparing each instruction's cost, the loop, the shared bandwidth's rates of the copies in flight).`
          : ''),
    );
    push();
  }

  const marginal = [];
  for (const build of builds) {
    for (const figure of figures[build] ?? []) {
      if (figure.min < figure.target && figure.max >= figure.target) marginal.push(`${figure.id} (${build})`);
    }
  }
  push(
    `**Marginal figures.** In this run the per-round values of ${marginal.length ? marginal.join(', ') : 'no figure'} fell on both sides ` +
      'of the target: for those, pass or miss depends on the round, and the median decides the table.',
  );
  push();
  const before = environment.loadBefore;
  const after = environment.loadAfter;
  push(
    `**Noise.** The machine has ${environment.cores} cores; the load average (1 min) was ${before[0]} before and ${after[0]} after the run. ` +
      "Times are the renderer thread's CPU time, which leaves out time other processes take but not the caches they evict; " +
      'the min/max columns show how far single rounds strayed from the median.',
  );
  push();
  return lines;
}
