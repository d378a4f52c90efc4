//! `numpy.random` as pypto's tests draw inputs with it, `astype`, numpy's integer dtypes, and the
//! tensor methods torch code calls on them (`.npu()`, `.bool()`, `.int()`, `.long()`).

use tilelab::session::Session;

use super::cells::{run_err, run_ok};

// `t.npu() is t` is False: as in torch, moving a CPU tensor to the NPU makes a new tensor.
#[test]
fn random_inputs_have_their_ranges_shapes_and_dtypes() {
    let mut session = Session::new();
    let code = r#"import numpy as np
import torch
np.random.seed(3)
a = np.random.uniform(-100, 100, [4, 5]).astype(np.float32)
print(a.dtype, a.shape, float(a.min()) >= -100, float(a.max()) < 100, float(a.max()) - float(a.min()) > 50)
x = np.random.uniform()
print(type(x).__name__, 0 <= x < 1)
c = np.random.choice(range(0, 10), (6,), False).astype(np.int32)
print(c.dtype, len(set(c.tolist())), all(0 <= v < 10 for v in c.tolist()))
print(sorted(np.random.choice(4, 4, replace=False).tolist()))
r = np.random.randint(0, 3, size=(200,))
print(r.dtype, set(r.tolist()) == {0, 1, 2}, type(np.random.randint(5)).__name__)
n = np.random.normal(5.0, 0.001, 1000)
print(abs(float(n.mean()) - 5.0) < 0.001, float(n.max()) - float(n.min()) < 0.02)
np.random.seed(7)
first = np.random.rand(3).tolist()
np.random.seed(7)
print(first == np.random.rand(3).tolist(), np.random.randn(2, 3).shape)
t = torch.from_numpy(np.random.uniform(2, 3, (2, 2)).astype(np.int32))
print(t.tolist(), t.npu() is t, t.bool().dtype, t.long().dtype, torch.tensor([1.5, -2.7]).int().tolist())"#;
    let expected = "pypto.DT_FP32 [4, 5] True True True\nfloat True\npypto.DT_INT32 6 True\n[0, 1, 2, 3]\n\
                    pypto.DT_INT64 True int\nTrue True\nTrue [2, 3]\n[[2, 2], [2, 2]] False torch.bool torch.int64 [1, -2]\n";
    assert_eq!(run_ok(&mut session, code), expected);
    let result = run_err(&mut session, "np.random.choice(3, 4, replace=False)");
    assert!(result.error().unwrap().message.contains("Cannot take a larger sample than population"));
    let result = run_err(&mut session, "np.random.randint(3, 3)");
    assert_eq!(result.error().unwrap().code, "runtime/value-error");
}
