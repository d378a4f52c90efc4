//! torch_npu's quantisation ops as GLM-4.5's goldens use them, with the formulas torch_npu
//! documents. Every expected number is worked out by hand in the comments: values are chosen so
//! that each scale is exact and each rounding is decided (ties included, which go to even).

use super::cell_output::printed;
use tilelab::session::Session;

const ROWS: &str = "import torch, torch_npu\n\
    x = torch.tensor([[127.0, -50.0, 2.5, 3.5, -1.5], [254.0, 1.0, -3.0, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0, 0.0]], dtype=torch.float16)\n";

#[test]
fn dynamic_quant_scales_each_row_by_its_largest_magnitude_and_rounds_ties_to_even() {
    // Row 0: max 127, scale 127/127 = 1, y = round(x) with ties to even: 2.5 → 2, 3.5 → 4, -1.5 → -2.
    // Row 1: max 254, scale 2, x/2 = [127, 0.5, -1.5, 0, 0.25] → [127, 0, -2, 0, 0].
    // Row 2: all zeros: scale 0 and zeros.
    let code = format!(
        "{ROWS}y, scale = torch_npu.npu_dynamic_quant(x)\n\
         print(y.tolist(), y.dtype)\nprint(scale.tolist(), scale.dtype, tuple(scale.shape))\n\
         y3, s3 = torch_npu.npu_dynamic_quant(x.reshape(1, 3, 5).to(torch.bfloat16))\n\
         print(tuple(y3.shape), tuple(s3.shape), s3.tolist())\n"
    );
    assert_eq!(
        printed(&code),
        "[[127, -50, 2, 4, -2], [127, 0, -2, 0, 0], [0, 0, 0, 0, 0]] torch.int8\n\
         [1.0, 2.0, 0.0] torch.float32 (3,)\n\
         (1, 3, 5) (1, 3) [[1.0, 2.0, 0.0]]\n"
    );
}

#[test]
fn smooth_scales_multiply_the_rows_first_one_vector_or_one_per_group() {
    // One vector: row 0 · [1, 2, 4, 0.5, 2] = [127, -100, 10, 1.75, -3], max 127, scale 1 → 1.75 → 2.
    // Groups ending at rows 1 and 3: row 0 · 1 as before; row 1 · 2 = [508, 2, -6, 0, 1], max 508,
    // scale 4, /4 = [127, 0.5, -1.5, 0, 0.25] → [127, 0, -2, 0, 0]; row 2 stays zeros.
    let code = format!(
        "{ROWS}smooth = torch.tensor([1.0, 2.0, 4.0, 0.5, 2.0], dtype=torch.float16)\n\
         y, scale = torch_npu.npu_dynamic_quant(x[:1], smooth_scales=smooth)\nprint(y.tolist(), scale.tolist())\n\
         groups = torch.tensor([[1.0] * 5, [2.0] * 5], dtype=torch.float16)\n\
         ends = torch.tensor([1, 3], dtype=torch.int32)\n\
         y, scale = torch_npu.npu_dynamic_quant(x, smooth_scales=groups, group_index=ends, dst_type=torch.int8)\n\
         print(y.tolist(), scale.tolist())\n"
    );
    assert_eq!(
        printed(&code),
        "[[127, -100, 10, 2, -3]] [1.0]\n\
         [[127, -50, 2, 4, -2], [127, 0, -2, 0, 0], [0, 0, 0, 0, 0]] [1.0, 4.0, 0.0]\n"
    );
}

const OPERANDS: &str = "import torch, torch_npu\n\
    a = torch.tensor([[1, 2], [3, -4]], dtype=torch.int8)\n\
    b = torch.tensor([[5, 6, 7], [-8, 9, 10]], dtype=torch.int8)\n";

#[test]
fn quant_matmul_dequantises_the_int32_product_per_column_and_per_token() {
    // a @ b = [[5 - 16, 6 + 18, 7 + 20], [15 + 32, 18 - 36, 21 - 40]] = [[-11, 24, 27], [47, -18, -19]].
    // · scale [0.5, 0.25, 2] · pertoken [1, 0.5]: [[-5.5, 6, 54], [11.75, -2.25, -19]] (exact in bf16).
    // int8 output (the default), scale [0.5] + offset [0.25]: [[-5.25, 12.25, 13.75], [23.75, -8.75,
    // -9.25]] rounded → [[-5, 12, 14], [24, -9, -9]]; an int32 bias [1, 2, 3] is added before the
    // scale: [[-10, 26, 30], [48, -16, -16]] · 0.5 = [[-5, 13, 15], [24, -8, -8]]; a bf16 bias after
    // it: acc · 1 + 0.5; scale 100 saturates at -128 and 127.
    let code = format!(
        "{OPERANDS}scale = torch.tensor([0.5, 0.25, 2.0])\npertoken = torch.tensor([1.0, 0.5])\n\
         out = torch_npu.npu_quant_matmul(a, b, scale, pertoken_scale=pertoken, bias=None, output_dtype=torch.bfloat16)\n\
         print(out.tolist(), out.dtype)\n\
         q = torch_npu.npu_quant_matmul(a, b, torch.tensor([0.5]), offset=torch.tensor([0.25]))\n\
         print(q.tolist(), q.dtype)\n\
         print(torch_npu.npu_quant_matmul(a, b, torch.tensor([0.5]), bias=torch.tensor([1, 2, 3], dtype=torch.int32)).tolist())\n\
         half = torch.tensor([0.5, 0.5, 0.5], dtype=torch.bfloat16)\n\
         print(torch_npu.npu_quant_matmul(a, b, torch.tensor([1.0]), bias=half, output_dtype=torch.float16).tolist())\n\
         print(torch_npu.npu_quant_matmul(a, b, torch.tensor([100.0])).tolist())\n"
    );
    assert_eq!(
        printed(&code),
        "[[-5.5, 6.0, 54.0], [11.75, -2.25, -19.0]] torch.bfloat16\n\
         [[-5, 12, 14], [24, -9, -9]] torch.int8\n\
         [[-5, 13, 15], [24, -8, -8]]\n\
         [[-10.5, 24.5, 27.5], [47.5, -17.5, -18.5]]\n\
         [[-128, 127, 127], [127, -128, -128]]\n"
    );
}

#[test]
fn swiglu_is_silu_of_the_first_half_times_the_second() {
    // [1, 2 | 3, -1]: silu(1)·3 = 3/(1 + e^-1), silu(2)·(-1) = -2/(1 + e^-2); along dim 0 of a
    // [2, 1] column [4 | 0.5]: silu(4)·0.5 = 2/(1 + e^-4).
    let code = "import torch, torch_npu\n\
        print([round(v, 6) for v in torch_npu.npu_swiglu(torch.tensor([[1.0, 2.0, 3.0, -1.0]]))[0].tolist()])\n\
        print(round(torch_npu.npu_swiglu(torch.tensor([[4.0], [0.5]]), dim=0).item(), 6))\n\
        print(torch_npu.npu_swiglu(torch.ones(2, 4, dtype=torch.bfloat16)).dtype)\n";
    let silu = |x: f64| x / (1.0 + (-x).exp());
    let round6 = |x: f64| (x * 1e6).round() / 1e6;
    assert_eq!(
        printed(code),
        format!("[{}, {}]\n{}\ntorch.bfloat16\n", round6(silu(1.0) * 3.0), round6(-silu(2.0)), round6(silu(4.0) * 0.5))
    );
}

#[test]
fn arguments_torch_npu_refuses_are_errors_at_the_argument() {
    let cases = [
        ("torch_npu.npu_dynamic_quant(x.float())", "x must be torch.float16 | torch.bfloat16, got torch.float32"),
        ("torch_npu.npu_dynamic_quant(x[0])", "x must have at least 2 dims, got shape [5]"),
        ("torch_npu.npu_dynamic_quant(x, x[0])", "takes at most 1 positional arguments"),
        ("torch_npu.npu_dynamic_quant(x, smooth_scales=x[0, :3])", "smooth_scales must have shape [5], got [3]"),
        (
            "torch_npu.npu_dynamic_quant(x, smooth_scales=x[:2], group_index=torch.tensor([2, 1], dtype=torch.int32))",
            "group_index must be non-decreasing group ends",
        ),
        (
            "torch_npu.npu_quant_matmul(x.to(torch.int8), x.to(torch.int8).t(), torch.tensor([1.0, 2.0]))",
            "scale must have shape [3] | [1], got [2]",
        ),
        ("torch_npu.npu_quant_matmul(x, x, torch.tensor([1.0]))", "x1 must be torch.int8, got torch.float16"),
        ("torch_npu.npu_swiglu(x)", "dim -1 has size 5, which does not split into two halves"),
    ];
    for (call, expected) in cases {
        let result = Session::new().run_cell(&format!("{ROWS}{call}\n"));
        let error = result.error().unwrap_or_else(|| panic!("{call} should fail"));
        assert!(error.message.contains(expected), "{call}: {error:?}");
        assert_eq!(error.line, 3, "{call}: {error:?}");
    }
}

#[test]
fn quantize_divides_or_multiplies_by_the_scales_adds_the_zero_points_and_saturates() {
    // div_mode=False: [1, -2, 3.5] · [2, 0.25, 100] + [0.5, 0, 0] = [2.5, -0.5, 350] → [2, -0, 127]
    // (ties to even, then saturated); div_mode=True: [1, -2, 3.5] / 0.5 = [2, -4, 7] → int32 as is.
    let code = "import torch, torch_npu\nx = torch.tensor([[1.0, -2.0, 3.5]], dtype=torch.bfloat16)\n\
        scales = torch.tensor([2.0, 0.25, 100.0], dtype=torch.bfloat16)\n\
        offsets = torch.tensor([0.5, 0.0, 0.0], dtype=torch.bfloat16)\n\
        q = torch_npu.npu_quantize(x, scales, offsets, torch.qint8, -1, False)\n\
        print(q.tolist(), q.dtype, torch.qint8 == torch.int8)\n\
        print(torch_npu.npu_quantize(x, torch.tensor([0.5]), None, torch.int32, -1).tolist())\n";
    assert_eq!(printed(code), "[[2, 0, 127]] torch.int8 True\n[[2, -4, 7]]\n");
}
