import pypto as pt

@pt.kernel
def square(x):
    return x * x

@pt.register_gradient("square")
def square_backward(grad_output, saved, ctx):
    x, = saved
    return grad_output * 2 * x, grad_output

x = pt.ones([3], requires_grad=True)
square(x).sum().backward()
