pypto.view(x, [8], [0]) = y
