from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(frozen=True)
class Tiling:
    rows: int = 32
    cols: int = 64
    tags: list = field(default_factory=list)


class Shape(NamedTuple):
    m: int
    n: int = 4


class Node:
    def __init__(self, parent=None):
        self.parent = parent
        self.children = []
        if parent is not None:
            parent.children.append(self)

    def depth(self):
        return 0 if self.parent is None else 1 + self.parent.depth()


root = Node()
leaf = Node(Node(root))
m, n = Shape(3)
print(Tiling(), leaf.depth(), m * n, super)
