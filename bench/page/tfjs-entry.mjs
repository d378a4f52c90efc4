// The tfjs bundle of the benchmark page, built by scripts/bench-run.mjs with Vite from
// node_modules: tfjs-core, every gradient (the published core bundles ship without them; the
// @tensorflow/tfjs union package registers them the same way) and the wasm backend.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import * as wasm from '@tensorflow/tfjs-backend-wasm';

export { tf, wasm };
