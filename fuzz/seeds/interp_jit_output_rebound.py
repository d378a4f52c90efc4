import pypto as pt

@pt.frontend.jit
def add_one(x, y):
    y = x + 1

x = pt.ones([8, 8])
y = pt.zeros([8, 8])
add_one(x, y)
