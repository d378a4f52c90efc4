print(a，b)
