y = pypto.view(x, [32, 64], [0, 0]
z = 1
