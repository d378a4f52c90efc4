//! The flash-attention form of pypto-gym's kernels: one query row per iteration, the key/value
//! blocks walked by `pypto.loop_unroll(…, unroll_list={1})` (a set, as that code writes it), the
//! running max/sum/output in kernel tensors written with `x[:] = …`, and `is_loop_begin` /
//! `is_loop_end` choosing the first and last block's branch, `valid_shape` from `pypto.min` as the
//! gym writes it — with whole blocks and with a partial last block, whose row max and row sum
//! cover its valid keys only, as pypto's reductions do. The reference is softmax attention
//! computed with pypto ops outside any kernel (the CPU path).

use tilelab::session::Session;

use super::kernel_forms::run_on_npu;

const ATTENTION: &str = r#"
import math
import pypto

HEADS, ROWS, KEYS, DIM, BLOCK = 2, 3, KEY_COUNT, 32, 16

@pypto.frontend.jit
def attend(query, key, value, output):
    pypto.set_cube_tile_shapes([32, 32], [32, 32], [32, 32])
    pypto.set_vec_tile_shapes(16, 64)
    blocks = (KEYS + BLOCK - 1) // BLOCK
    for head in pypto.loop(0, HEADS, 1, name="LOOP_H", idx_name="head"):
        for row in pypto.loop(0, ROWS, 1, name="LOOP_R", idx_name="row"):
            acc = pypto.tensor([1, DIM], pypto.DT_FP32, "acc")
            total = pypto.tensor([1, 1], pypto.DT_FP32, "total")
            top = pypto.tensor([1, 1], pypto.DT_FP32, "top")
            q = pypto.reshape(pypto.view(query, [1, 1, DIM], [head, row, 0]), [1, DIM])
            for block, _ in pypto.loop_unroll(0, blocks, 1, name="LOOP_KV", idx_name="block", unroll_list={1}):
                start = block * BLOCK
                valid = pypto.min(BLOCK, KEYS - start)
                k = pypto.reshape(pypto.view(key, [1, BLOCK, DIM], [head, start, 0], valid_shape=[1, valid, DIM]), [BLOCK, DIM])
                v = pypto.reshape(pypto.view(value, [1, BLOCK, DIM], [head, start, 0], valid_shape=[1, valid, DIM]), [BLOCK, DIM])
                k = pypto.view(k, [BLOCK, DIM], [0, 0], valid_shape=[valid, DIM])
                v = pypto.view(v, [BLOCK, DIM], [0, 0], valid_shape=[valid, DIM])
                scores = pypto.mul(pypto.matmul(q, k, pypto.DT_FP32, b_trans=True), 1.0 / math.sqrt(DIM))
                block_top = pypto.amax(scores, dim=-1, keepdim=True)
                probs = pypto.exp(pypto.sub(scores, block_top))
                block_total = pypto.sum(probs, dim=-1, keepdim=True)
                part = pypto.matmul(probs, pypto.cast(v, pypto.DT_FP32), pypto.DT_FP32)
                if pypto.is_loop_begin(block):
                    acc[:] = part
                    total[:] = block_total
                    top[:] = block_top
                else:
                    new_top = pypto.maximum(top, block_top)
                    old_scale = pypto.exp(pypto.sub(top, new_top))
                    new_scale = pypto.exp(pypto.sub(block_top, new_top))
                    new_total = pypto.add(pypto.mul(old_scale, total), pypto.mul(new_scale, block_total))
                    new_acc = pypto.add(pypto.mul(acc, old_scale), pypto.mul(part, new_scale))
                    if pypto.is_loop_end(block):
                        result = pypto.cast(pypto.div(new_acc, new_total), pypto.DT_BF16)
                        output[head:head + 1, row:row + 1, :] = pypto.reshape(result, [1, 1, DIM])
                    else:
                        acc[:] = new_acc
                    total[:] = new_total
                    top[:] = new_top

query = pypto.cast(pypto.randn([HEADS, ROWS, DIM], seed=31), pypto.DT_BF16)
key = pypto.cast(pypto.randn([HEADS, KEYS, DIM], seed=32), pypto.DT_BF16)
value = pypto.cast(pypto.randn([HEADS, KEYS, DIM], seed=33), pypto.DT_BF16)
output = pypto.zeros([HEADS, ROWS, DIM], dtype=pypto.DT_BF16)
attend(query, key, value, output)
q32, k32, v32 = pypto.cast(query, pypto.DT_FP32), pypto.cast(key, pypto.DT_FP32), pypto.cast(value, pypto.DT_FP32)
weights = pypto.softmax(pypto.matmul(q32, pypto.transpose(k32, 1, 2)) / math.sqrt(DIM), dim=-1)
print(pypto.amax(pypto.abs(pypto.cast(output, pypto.DT_FP32) - pypto.matmul(weights, v32))).item())
"#;

/// Runs the kernel over `keys` keys; the largest |kernel − reference| of its bf16 output.
fn attention_error(session: &mut Session, keys: usize) -> (f64, String) {
    let stdout = run_on_npu(session, &ATTENTION.replace("KEY_COUNT", &keys.to_string()));
    (stdout.lines().last().unwrap().trim().parse().unwrap(), stdout)
}

#[test]
fn flash_attention_by_query_row_with_unrolled_key_blocks_runs_on_the_npu() {
    let mut session = Session::new();
    let (worst, stdout) = attention_error(&mut session, 48);
    // The output is stored in bf16: |out| ≤ max|v| ≈ 3, so one rounding is ≤ 3 × 2⁻⁸ ≈ 1.2e-2; the
    // kernel's fp32 online softmax differs from the reference's by far less.
    assert!(worst <= 1.6e-2, "{stdout}");
    // Every query row reached its last block: no output row is left at zero.
    let rows_written = run_on_npu(
        &mut session,
        "print(int(pypto.sum(pypto.amax(pypto.abs(pypto.cast(output, pypto.DT_FP32)), dim=-1) > 0).item()))",
    );
    assert_eq!(rows_written.trim(), "6");
}

#[test]
fn a_partial_last_key_block_is_reduced_over_its_valid_keys() {
    // 40 keys in blocks of 16: the last block holds 8. Were its 8 padding scores (0) in the row max
    // and exp(0 − max) in the row sum, the weights would be off by far more than the bf16 rounding.
    let (worst, stdout) = attention_error(&mut Session::new(), 40);
    assert!(worst <= 1.6e-2, "{stdout}");
}
