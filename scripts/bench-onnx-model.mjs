// Writes the ONNX model the benchmark runs in onnxruntime-web: one MatMul `Y = A · B` with both
// operands as graph inputs and symbolic dims (M, K, N), so one file serves every size and B is
// packed on each call, as in TileLab. The protobuf is encoded here by hand (field numbers from
// onnx.proto: ModelProto, GraphProto, NodeProto, ValueInfoProto, TypeProto, TensorShapeProto).
// Usage: node scripts/bench-onnx-model.mjs [OUT_DIR]   (default bench/models/)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;
const FLOAT = 1; // TensorProto.DataType.FLOAT

/** Unsigned LEB128 (protobuf varint) of a non-negative integer. */
export function varint(value) {
  const bytes = [];
  let rest = value;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0);
  return bytes;
}

const key = (field, wire) => varint(field * 8 + wire);
const integerField = (field, value) => [...key(field, WIRE_VARINT), ...varint(value)];
const bytesField = (field, bytes) => [...key(field, WIRE_BYTES), ...varint(bytes.length), ...bytes];
const stringField = (field, text) => bytesField(field, [...new TextEncoder().encode(text)]);

/** ValueInfoProto of a float tensor whose dims are named parameters. */
function floatInput(name, dimNames) {
  const dims = dimNames.flatMap((dim) => bytesField(1, stringField(2, dim))); // Dimension.dim_param
  const tensorType = [...integerField(1, FLOAT), ...bytesField(2, dims)]; // elem_type, shape
  return [...stringField(1, name), ...bytesField(2, bytesField(1, tensorType))]; // name, type.tensor_type
}

/** The bytes of the MatMul model (IR version 8, default opset 13). */
export function matmulModel() {
  const node = [...stringField(1, 'A'), ...stringField(1, 'B'), ...stringField(2, 'Y'), ...stringField(3, 'matmul'), ...stringField(4, 'MatMul')];
  const graph = [
    ...bytesField(1, node),
    ...stringField(2, 'tilelab_bench_matmul'),
    ...bytesField(11, floatInput('A', ['M', 'K'])),
    ...bytesField(11, floatInput('B', ['K', 'N'])),
    ...bytesField(12, floatInput('Y', ['M', 'N'])),
  ];
  const opset = [...stringField(1, ''), ...integerField(2, 13)];
  const model = [...integerField(1, 8), ...stringField(2, 'tilelab-bench'), ...bytesField(7, graph), ...bytesField(8, opset)];
  return new Uint8Array(model);
}

/** Writes bench/models/matmul.onnx (or into `directory`) and returns its path. */
export function writeModels(directory) {
  mkdirSync(directory, { recursive: true });
  const path = join(directory, 'matmul.onnx');
  writeFileSync(path, matmulModel());
  return path;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  console.log(`wrote ${writeModels(resolve(process.argv[2] ?? join(root, 'bench', 'models')))}`);
}
