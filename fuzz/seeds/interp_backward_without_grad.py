import pypto as pt
x = pt.tensor([1.0, 2.0])
loss = (x * x).sum()
loss.backward()
