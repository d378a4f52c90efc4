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
