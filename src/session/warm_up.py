# The engine's warm-up (src/session/warm_up.rs): small kernels over the paths a real notebook's
# first kernel calls take (FP16 casts, element-wise and reduction tiles, a matmul, generated
# backward kernels, compile, simulate, execute), so the browser has optimised their code before
# the reader's first run. No unseeded randomness: the session's random stream stays untouched.
import pypto as pt

@pt.kernel
def tilelab_warm_up_swish(x):
    pt.set_vec_tile_shapes(8, 256)
    x32 = pt.cast(x, pt.DT_FP32)
    return pt.cast(x32 * pt.sigmoid(x32), pt.DT_FP16)

@pt.kernel
def tilelab_warm_up_norm(x, gamma):
    pt.set_vec_tile_shapes(8, 256)
    mean = pt.mean(x, dim=-1, keepdim=True)
    centred = x - mean
    return centred * pt.rsqrt(pt.mean(centred * centred, dim=-1, keepdim=True) + 1e-5) * gamma

@pt.kernel
def tilelab_warm_up_matmul(a, b):
    return pt.matmul(a, b) * 2.0

x = pt.cast(pt.reshape(pt.sin(pt.arange(0, 64 * 1024) * 0.37), [64, 1024]), pt.DT_FP16)
x.requires_grad = True
tilelab_warm_up_swish(x).backward(pt.cast(pt.ones([64, 1024]), pt.DT_FP16))
y = pt.reshape(pt.cos(pt.arange(0, 64 * 256) * 0.11), [64, 256])
y.requires_grad = True
gamma = pt.ones([1, 256])
gamma.requires_grad = True
(tilelab_warm_up_norm(y, gamma) * pt.cos(y)).sum().backward()
a = pt.reshape(pt.sin(pt.arange(0, 64 * 64) * 0.23), [64, 64])
a.requires_grad = True
tilelab_warm_up_matmul(a, pt.reshape(pt.cos(pt.arange(0, 64 * 64) * 0.07), [64, 64])).sum().backward()
pt.assert_allclose(y.grad, y.grad)

# pypto's own kernel form (a loop of views assembled into an output), its generated backward and
# schedule; tensors through Python lists; a registered gradient and the reference ops beside it.
@pt.frontend.jit
def tilelab_warm_up_rows(x, out):
    pt.set_vec_tile_shapes(4, 64)
    for i in pt.loop(0, (x.shape[0] + 3) // 4, name="tilelab_warm_up_tiles", idx_name="i"):
        tile = pt.view(x, [4, 64], [i * 4, 0], valid_shape=[min(4, x.shape[0] - i * 4), 64])
        centred = tile - pt.mean(tile, dim=-1, keepdim=True)
        e = pt.exp(centred - pt.amax(centred, dim=-1, keepdim=True))
        pt.assemble(e / pt.sum(e, dim=-1, keepdim=True), [i * 4, 0], out)

rows = pt.as_tensor(pt.reshape(pt.sin(pt.arange(0, 14 * 64) * 0.3), [14, 64]).tolist(), requires_grad=True)
out = pt.zeros([14, 64])
tilelab_warm_up_rows(rows, out)
(out * pt.cos(rows.detach())).sum().backward()
pt.assert_allclose(out, pt.softmax(rows.detach(), dim=-1), rtol=1e-5, atol=1e-6)

@pt.kernel
def tilelab_warm_up_tanh(x):
    pt.set_vec_tile_shapes(8, 64)
    return pt.tanh(x) * 0.5

@pt.kernel
def tilelab_warm_up_tanh_grad(x, dy):
    pt.set_vec_tile_shapes(8, 64)
    t = pt.tanh(x)
    return dy * (1 - t * t) * 0.5

@pt.register_gradient("tilelab_warm_up_tanh")
def tilelab_warm_up_tanh_backward(grad_output, saved, ctx):
    x, = saved
    return tilelab_warm_up_tanh_grad(x, grad_output)

z = pt.reshape(pt.cos(pt.arange(0, 16 * 64) * 0.19), [16, 64])
z.requires_grad = True
(tilelab_warm_up_tanh(z) * z).mean().backward()
check = pt.autodiff.check_gradient(tilelab_warm_up_tanh, [pt.reshape(pt.sin(pt.arange(0, 8) * 0.5), [2, 4])])
totals = {name: float(value) for name, value in [("z", z.grad.sum().item()), ("rows", rows.grad.mean().item())]}
pt.nn.layer_norm(z.detach(), pt.ones([64]), pt.zeros([64])).sum().item()
pt.schedule(tilelab_warm_up_tanh_grad, z.detach(), z.detach())

# The GEMM kernels for each operand dtype and transpose, at a size whose first call spends V8's
# tier-up budget: with only the small matmul above, a notebook's first large matmul ran in baseline
# code (example 10's BF16 matmuls: packed_gemm's baseline code was 15 % of its first run in node).
for dtype in [pt.DT_FP32, pt.DT_BF16, pt.DT_FP16]:
    p = pt.cast(pt.reshape(pt.sin(pt.arange(0, 128 * 256) * 0.1), [128, 256]), dtype)
    q = pt.cast(pt.reshape(pt.cos(pt.arange(0, 256 * 128) * 0.1), [256, 128]), dtype)
    for a_trans, b_trans, left, right in [(False, False, p, q), (True, False, q, q), (False, True, p, p)]:
        pt.matmul(left, right, out_dtype=dtype, a_trans=a_trans, b_trans=b_trans)
