import pypto as pt
x = pt.arange(40).reshape([10, 4])
tile = pt.view(x, [4, 4], [8, 0])
