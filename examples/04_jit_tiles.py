# %% [markdown]
# # A tiled kernel in the `@pypto.frontend.jit` style
# The output is a parameter written in place. The kernel walks the rows in tiles of 4 with
# `pypto.loop`; the last tile is ragged (10 rows = 4 + 4 + 2), so its view gets a `valid_shape`:
# elements outside it read as 0 and `assemble` writes only the valid region back.
# The call runs on the simulated NPU: each `pt.loop` iteration is one unit of work (load the view
# on MTE2, max/exp/sum/divide on the vector unit, store on MTE3), spread over the cores.

# %%
import pypto as pt

@pt.frontend.jit(pass_options={"vec_nbuffer_setting": 2})
def row_softmax(x, out):
    pt.set_vec_tile_shapes(4, 16)
    rows = x.shape[0]
    for i in pt.loop(0, (rows + 3) // 4, name="row_tiles", idx_name="i"):
        start = i * 4
        valid = min(4, rows - start)
        tile = pt.view(x, [4, 16], [start, 0], valid_shape=[valid, 16])
        shifted = tile - pt.amax(tile, dim=-1, keepdim=True)
        e = pt.exp(shifted)
        pt.assemble(e / pt.sum(e, dim=-1, keepdim=True), [start, 0], out)

# %%
x = pt.randn([10, 16], seed=4)
out = pt.zeros([10, 16])
row_softmax(x, out)
pt.assert_allclose(out, pt.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)
print("rows sum to one:", pt.allclose(out.sum(dim=-1), pt.ones([10])))
out

# %% [markdown]
# The schedule of one call: `vec_nbuffer_setting: 2` lets the next tile's copy-in overlap the
# current tile's vector work. Each trace event names the script line it comes from.

# %%
s = pt.schedule(row_softmax, x, out)
pt.assert_allclose(out, pt.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)
assert s.gm_bytes_read == 10 * 16 * 4 and s.gm_bytes_written == 10 * 16 * 4
s
