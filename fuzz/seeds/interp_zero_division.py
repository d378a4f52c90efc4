total = 10
count = 0
mean = total / count
