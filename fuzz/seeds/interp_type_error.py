n = 3
label = "n = " + n
