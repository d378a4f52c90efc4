import pypto as pt
actual = pt.tensor([1.0, 2.0, 3.0])
pt.assert_allclose(actual, pt.tensor([1.0, 2.5, 3.0]))
