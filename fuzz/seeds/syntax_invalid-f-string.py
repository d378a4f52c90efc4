print(f"loss = {}")
