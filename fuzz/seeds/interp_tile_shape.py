import pypto as pt

@pt.kernel
def double(x):
    pt.set_vec_tile_shapes(16, 20)
    return x * 2

# %%
double(pt.ones([16, 20], dtype=pt.DT_FP16))
