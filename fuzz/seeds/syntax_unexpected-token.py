total = a b
