def f(x, x):
    return x
