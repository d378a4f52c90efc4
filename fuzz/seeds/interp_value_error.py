text = "12a"
value = int(text)
