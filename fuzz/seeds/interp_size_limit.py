import pypto as pt
big = pt.zeros([100000, 100000])
