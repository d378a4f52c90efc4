import pypto as pt

def project(u):
    return pt.matmul(u, u)

# %%
a = pt.ones([4, 3])
project(a)
