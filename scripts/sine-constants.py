#!/usr/bin/env python3
"""π/2 in three f64 parts for src/tensor/simd/sine.rs: two of 30 significant bits and the rest."""
from decimal import Decimal, getcontext
from fractions import Fraction
import math

getcontext().prec = 100
PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798")
half_pi = Fraction(PI / 2)
part_1 = Fraction(round(half_pi * 2**29), 2**29)
rest = half_pi - part_1
exponent = math.floor(math.log2(abs(rest)))
part_2 = Fraction(round(rest * 2 ** (29 - exponent)), 2 ** (29 - exponent))
part_3 = float(rest - part_2)
for name, part in [("PART_1", part_1), ("PART_2", part_2)]:
    print(name, Decimal(part.numerator) / Decimal(part.denominator))
print("PART_3", repr(part_3))
