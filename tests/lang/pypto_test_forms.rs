//! The host forms of pypto's operation tests (python/tests/st/pypto_test.py's TestBuilder and the
//! files built on it): torch's dtype objects as torch prints them, `isinstance` with numpy's array
//! type and `collections.abc`, `torch.is_tensor`/`from_numpy`, and a `with pypto.function(…)`
//! header that unpacks lists of tensors, run again on other data (our own code and numbers).

use tilelab::session::Session;

use super::cells::run_ok;

fn printed(code: &str) -> Vec<String> {
    run_ok(&mut Session::new(), code).lines().map(str::to_string).collect()
}

/// `str(t.dtype)` of a torch tensor is torch's name (TestBuilder maps "torch.float32" to a pypto
/// dtype); pypto's dtypes and pypto's tensors keep pypto's; the families compare equal.
#[test]
fn torch_dtypes_print_as_torch_and_pypto_dtypes_as_pypto() {
    let lines = printed(
        "import torch, pypto\nimport numpy as np\n\
         a = torch.rand(2, 3, dtype=torch.float16)\n\
         print(str(a.dtype), (a * 2).dtype, a[0].dtype, a.float().dtype, torch.int32)\n\
         x = pypto.zeros([2, 3])\n\
         print(x.dtype, pypto.DT_BF16, np.float32)\n\
         print(torch.float32 == pypto.DT_FP32, a.dtype == torch.float16, a.dtype == torch.float32)\n\
         print({torch.float16: 'half'}[a.dtype])\n",
    );
    assert_eq!(
        lines,
        [
            "torch.float16 torch.float16 torch.float16 torch.float32 torch.int32",
            "pypto.DT_FP32 pypto.DT_BF16 float32",
            "True True False",
            "half"
        ]
    );
}

#[test]
fn isinstance_knows_ndarrays_and_the_abstract_containers() {
    let lines = printed(
        "import numpy as np, torch\nfrom collections.abc import Iterable, Sequence, Mapping, Callable\n\
         t = torch.zeros(2)\n\
         print(isinstance(t, np.ndarray), isinstance(3, np.ndarray), isinstance((t, 1), (np.ndarray, tuple)))\n\
         print(isinstance([1], Iterable), isinstance(3, Iterable), isinstance('ab', Sequence), isinstance({1}, Sequence))\n\
         print(isinstance({}, Mapping), isinstance([], Mapping), isinstance(len, Callable), isinstance(t, Iterable))\n",
    );
    assert_eq!(lines, ["True False True", "True False True False", "True False True True"]);
}

/// `from_numpy` shares memory, as torch's does: a write through the tensor shows in the array.
#[test]
fn is_tensor_and_from_numpy_work_on_arrays() {
    let lines = printed(
        "import numpy as np, torch\n\
         a = np.ndarray([2, 2], dtype=np.float32)\n\
         t = torch.from_numpy(a)\n\
         t[0, 1] = 5.0\n\
         print(torch.is_tensor(t), torch.is_tensor([1.0]), a[0, 1].item(), a.sum().item())\n",
    );
    assert_eq!(lines, ["True False 5.0 5.0"]);
}

/// TestBuilder's form: the header unpacks lists of placeholders, the block reaches them through
/// the lists and iterates and deletes its recorder; the device run binds the lists' tensors to the
/// data by position (outputs land in the torch tensors) and leaves the placeholders as they were.
/// The reference is host arithmetic on the same inputs: x · 2 + y exactly in f32.
#[test]
fn a_recorded_function_reaches_unpacked_tensors_by_object_and_runs_again_on_data() {
    let lines = printed(
        "import pypto, torch\n\
         class Holder:\n    pass\n\
         h = Holder()\n\
         h.inputs = [pypto.tensor([4, 8], pypto.DT_FP32, 'x'), pypto.tensor([4, 8], pypto.DT_FP32, 'y')]\n\
         h.outputs = [pypto.tensor([4, 8], pypto.DT_FP32, 'z')]\n\
         def kernel(x, y, z):\n    pypto.set_vec_tile_shapes(4, 8)\n    z.move(x * 2.0 + y)\n\
         with pypto.function('MAIN', *h.inputs, *h.outputs) as recorder:\n    for _ in recorder:\n        kernel(*h.inputs, *h.outputs)\n    del recorder\n\
         x = torch.arange(32, dtype=torch.float32).reshape(4, 8)\n\
         y = torch.ones(4, 8) * 0.5\n\
         z = torch.zeros(4, 8)\n\
         pypto.runtime._device_run_once_data_from_host(pypto.from_torch(x), pypto.from_torch(y), pypto.from_torch(z))\n\
         print(torch.equal(z, x * 2.0 + y), z[3, 7].item())\n\
         print(h.inputs[0].sum().item(), h.outputs[0].sum().item())\n",
    );
    assert_eq!(lines, ["True 62.5", "0.0 0.0"]);
}

/// A `valid_shape` entry larger than the view's own is the whole dim: pypto's tests pass
/// `min(n - offset, n)`, larger than every tile but the last (here 32 > 16 for both tiles).
#[test]
fn a_valid_shape_larger_than_the_view_is_the_whole_view() {
    let lines = printed(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def double(a, b):\n    pypto.set_vec_tile_shapes(16, 16)\n    for i in pypto.loop(2):\n        n = pypto.symbolic_scalar(32)\n        tile = pypto.view(a, [16, 16], [i * 16, 0], valid_shape=[pypto.min(n - i * 16, n), 16])\n        pypto.assemble(tile * 2.0, [i * 16, 0], b)\n\
         a = pypto.ones([32, 16])\n\
         b = pypto.zeros([32, 16])\n\
         double(a, b)\n\
         print(b.sum().item())\n",
    );
    assert_eq!(lines, ["1024.0"]);
}

/// The small host names pypto's tests and models use: `exit()`, `math.prod`, `torch.nan`,
/// `torch_npu.npu`, `gc.collect()`, `torch._dynamo.allow_in_graph`, pypto's `zeros(*size)`,
/// `x.max(dim=…)` (values and indices), `torch.triu`.
#[test]
fn the_small_host_names_of_pypto_tests_and_models_work() {
    let lines = printed(
        "import math, gc, torch, torch_npu, pypto\nfrom torch._dynamo import allow_in_graph\n\
         @allow_in_graph\ndef twice(x):\n    return 2 * x\n\
         torch_npu.npu.set_device(0)\n\
         print(math.prod([2, 3, 4]), math.prod([]), math.prod([1.5], start=2), twice(4), gc.collect())\n\
         print(math.isnan(torch.nan), torch.inf > 1e308, math.isinf(-torch.inf), math.isfinite(1.0))\n\
         print(pypto.zeros(2, 3, dtype=pypto.DT_INT32).shape, pypto.ones(4).shape)\n\
         x = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])\n\
         values, indices = x.max(dim=1, keepdim=True)\n\
         print(values.tolist(), indices.tolist(), x.min(0)[0].tolist())\n\
         print(torch.triu(torch.ones(3, 3)).sum().item(), torch.tril(torch.ones(3, 3), diagonal=-1).sum().item())\n\
         exit()\nprint('not reached')\n",
    );
    assert_eq!(
        lines,
        ["24 1 3.0 8 0", "True True True True", "[2, 3] [4]", "[[5.0], [7.0]] [[1], [0]] [1.0, 0.0, 2.0]", "6.0 3.0",]
    );
}

/// pypto's Tensor methods that are its functions with the tensor first (`x.fillpad(…)`,
/// `x.log2()`) run in a kernel; the filled tile is worked by hand: 4 valid of 8 columns × 2.0.
#[test]
fn pypto_function_methods_run_in_a_kernel() {
    let lines = printed(
        "import pypto\n\
         @pypto.frontend.jit\n\
         def fill(a, out, logs):\n    pypto.set_vec_tile_shapes(4, 8)\n    tile = pypto.view(a, [4, 8], [0, 0], valid_shape=[4, 4])\n    out[:] = tile.fillpad(mode='constant', value=-1.0)\n    logs[:] = a.log2()\n\
         a = pypto.full([4, 8], 2.0)\n\
         out = pypto.zeros([4, 8])\n\
         logs = pypto.zeros([4, 8])\n\
         fill(a, out, logs)\n\
         print(out.sum().item(), logs.sum().item())\n",
    );
    // 16 valid twos and 16 filled −1s: 32 − 16 = 16; log₂ 2 = 1 in all 32.
    assert_eq!(lines, ["16.0 32.0"]);
}

/// `f'{x=}'` as pypto's models print it: the text as written, then the repr (or the format spec's
/// or conversion's form), as Python prints it.
#[test]
fn self_documenting_f_string_fields_print_as_python() {
    let lines =
        printed("x = 3\nname = 'ab'\nprint(f'{x=}', f'{x = }', f'{name=}', f'{x*2=:>4}', f'{name=!s}', f'{x == 3}')\n");
    assert_eq!(lines, ["x=3 x = 3 name='ab' x*2=   6 name=ab True"]);
}

/// `requires_grad_` turns a leaf into one autograd records (its gradient is then 2·x here), and
/// refuses a computed tensor, as torch does.
#[test]
fn requires_grad_in_place_follows_torch() {
    let lines = printed(
        "import torch\nx = torch.tensor([1.0, 3.0])\nprint(x.requires_grad_() is x, x.requires_grad)\n\
         (x * x).sum().backward()\nprint(x.grad.tolist())\n\
         try:\n    (x * 2).requires_grad_(False)\nexcept RuntimeError:\n    print('refused')\n",
    );
    assert_eq!(lines, ["True True", "[2.0, 6.0]", "refused"]);
}

/// torch.matmul's 1-D rule (kimi's model multiplies `[…, n]` by a `[n]` weight): a vector on the
/// right is a column, on the left a row, and that dim is dropped; worked by hand on [[0, 1, 2],
/// [3, 4, 5]] and [1, 2, 3].
#[test]
fn torch_matmul_takes_vectors_as_torch_does() {
    let lines = printed(
        "import torch\na = torch.arange(6, dtype=torch.float32).reshape(2, 3)\nv = torch.tensor([1.0, 2.0, 3.0])\n\
         print(torch.matmul(a, v).tolist(), torch.matmul(torch.tensor([1.0, 1.0]), a).tolist(), torch.matmul(v, v).item(), a.matmul(v).shape)\n",
    );
    assert_eq!(lines, ["[8.0, 26.0] [3.0, 5.0, 7.0] 14.0 (2,)"]);
}
