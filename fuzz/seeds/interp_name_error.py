import pypto as pt
x = pt.ones([2])
print(x + y)
