"""Golden values for the autograd tests, from an independent reference (JAX, float64).

Run by hand (not in CI):  pip install jax jaxlib numpy && python3 tests/golden/make_autograd_golden.py
It writes tests/golden/autograd_golden.json: for each case, the inputs, the constants, the loss,
the gradient of the loss with respect to every input and, for one case, a Hessian-vector product.
The Rust test tests/autograd/golden.rs builds the same functions from TileLab's primitives.
"""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
rng = np.random.RandomState(20261129)


def normal(*shape):
    return rng.standard_normal(shape)


def gelu(x):
    return jax.nn.gelu(x, approximate=False)


def gelu_tanh(x):
    return jax.nn.gelu(x, approximate=True)


def silu(x):
    return x * jax.nn.sigmoid(x)


def mlp(x, w1, b1, w2, target):
    # cross-entropy of a two-layer perceptron: mean over rows of −Σ target · log_softmax(h W2)
    h = gelu(x @ w1 + b1)
    logits = h @ w2
    return -jnp.mean(jnp.sum(target * jax.nn.log_softmax(logits, axis=-1), axis=-1))


def layer_norm(x, gamma, beta, weights):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    y = (x - mean) / jnp.sqrt(var + 1e-5) * gamma + beta
    return jnp.sum(y * weights)


def attention(q, k, v, weights):
    scores = jax.nn.softmax(q @ k.T / jnp.sqrt(8.0), axis=-1)
    return jnp.sum((scores @ v) * weights)


def elementwise(x, y, p):
    terms = (
        jax.nn.sigmoid(x) * jnp.tanh(y)
        + jnp.exp(-x * x) * silu(y)
        + jnp.sqrt(p) * jnp.log(p)
        + jax.lax.rsqrt(p) - 1.0 / p
        + jnp.sin(x) * jnp.cos(y)
        + gelu(x) - gelu_tanh(y)
        + jnp.maximum(x, y) - jnp.minimum(x, y) * 0.5
        + jnp.power(p, y)
        + jnp.abs(x) * jax.nn.relu(y)
        + jnp.clip(x, -0.5, 0.5)
    )
    return jnp.sum(terms)


def reductions(x):
    return jnp.sum(jnp.max(x, axis=1)) + jnp.sum(jnp.var(x, axis=0) * jnp.mean(x, axis=0)) - jnp.sum(jnp.min(x, axis=1) ** 2)


def tiles(x, weights):
    # view: a 4×4 tile at (2, 3) of a 5×6 tensor, valid 3×3 (zeros elsewhere); exp; assemble the
    # valid region into zeros; weighted sum.
    tile = jnp.zeros((4, 4)).at[:3, :3].set(x[2:5, 3:6])
    tile = jnp.exp(tile)
    out = jnp.zeros((5, 6)).at[2:5, 3:6].set(tile[:3, :3])
    return jnp.sum(out * weights)


def second_order(x):
    return jnp.sum(jnp.sin(x) * x * x) + jnp.sum(x) ** 3


def tensor(array):
    array = np.asarray(array, dtype=np.float64)
    return {"shape": list(array.shape), "values": array.reshape(-1).tolist()}


def case(name, function, inputs, constants):
    names = list(inputs)
    arguments = [jnp.asarray(inputs[n]) for n in names] + [jnp.asarray(c) for c in constants.values()]
    loss, grads = jax.value_and_grad(function, argnums=tuple(range(len(names))))(*arguments)
    return {
        "name": name,
        "inputs": {n: tensor(inputs[n]) for n in names},
        "constants": {n: tensor(c) for n, c in constants.items()},
        "loss": float(loss),
        "grads": {n: tensor(g) for n, g in zip(names, grads)},
    }


def main():
    cases = [
        case("mlp", mlp, {"x": normal(4, 3), "w1": normal(3, 5), "b1": normal(5), "w2": normal(5, 2)}, {"target": np.eye(2)[[0, 1, 1, 0]]}),
        case("layer_norm", layer_norm, {"x": normal(3, 6), "gamma": normal(6), "beta": normal(6)}, {"weights": normal(3, 6)}),
        case("attention", attention, {"q": normal(4, 8), "k": normal(4, 8), "v": normal(4, 8)}, {"weights": normal(4, 8)}),
        case("elementwise", elementwise, {"x": normal(5), "y": normal(5), "p": np.abs(normal(5)) + 0.5}, {}),
        case("reductions", reductions, {"x": normal(3, 4)}, {}),
        case("tiles", tiles, {"x": normal(5, 6)}, {"weights": normal(5, 6)}),
    ]
    x = normal(3)
    v = normal(3)
    _, hvp = jax.jvp(jax.grad(second_order), (jnp.asarray(x),), (jnp.asarray(v),))
    hessian = {"name": "hessian_vector_product", "x": tensor(x), "v": tensor(v), "hvp": tensor(hvp)}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "autograd_golden.json")
    with open(path, "w") as f:
        json.dump({"generator": "tests/golden/make_autograd_golden.py (JAX " + jax.__version__ + ", float64)", "cases": cases, "hessian": hessian}, f, indent=None, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
