class Model:
    pass
square = lambda v: v * v
squares = [v * v for v in values]
try:
    pass
except:
    pass
raise ValueError("bad")
from pypto import view
if (n := 10) > 5:
    pass
first, *rest = values
mask = a & b
