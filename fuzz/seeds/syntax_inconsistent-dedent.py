for i in range(4):
    if i:
        x = i
      y = i
