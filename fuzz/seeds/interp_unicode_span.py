import pypto as pt
数据 = pt.ones([2])
print(数据 * 数据 + 未定义)
