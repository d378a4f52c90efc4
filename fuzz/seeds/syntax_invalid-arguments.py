pypto.softmax(dim=-1, x)
