message = "hello
print(message)
