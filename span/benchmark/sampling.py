"""Stratified sampling: pick n items spread evenly over every level of their strata keys (most important
dimension first), without holding the items — only their keys, counted.

The draw walks a tree of the keys: at each level it takes the next child in a seeded shuffled order, so
every direction, then every reasoning type inside it, and so on, is visited in turn; a leaf gives its
items in a seeded shuffled order. ``StratifiedChooser`` does this in two passes over the keys (count,
then select) so that a caller can stream millions of cheap planned items and build only the chosen ones.
"""

from __future__ import annotations

import random
from array import array
from typing import Iterable

from .errors import GeneratorError


class _Node:
    __slots__ = ("children", "perm", "pos", "done", "chosen", "seen")

    def __init__(self) -> None:
        self.children: list[_Node] | None = None
        self.perm: array | None = None   # a leaf: its items' local indices in draw order
        self.pos = 0
        self.done = False
        self.chosen: set[int] = set()    # a leaf: the local indices drawn
        self.seen = 0                    # a leaf: items met so far in the selecting pass


def _draw(node: _Node) -> bool:
    """Draw one item under `node` (recorded in its leaf's `chosen`); False when it is exhausted."""
    if node.done:
        return False
    if node.perm is not None:
        if node.pos < len(node.perm):
            node.chosen.add(node.perm[node.pos])
            node.pos += 1
            return True
        node.done = True
        return False
    for _ in range(len(node.children)):
        child = node.children[node.pos]
        node.pos = (node.pos + 1) % len(node.children)
        if _draw(child):
            return True
    node.done = True
    return False


def check_size(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise GeneratorError(f"sample size must be a positive integer, got {n!r}")
    return n


class StratifiedChooser:
    """Two passes over the same keys in the same order:

        chooser = StratifiedChooser(n, seed)
        for key in keys(): chooser.count(key)
        chooser.draw()
        picked = [item for item, key in items_with_keys() if chooser.select(key)]
    """

    def __init__(self, n: int, seed=0) -> None:
        self.n = check_size(n)
        self.seed = seed
        self.total = 0
        self._raw: dict = {}
        self._leaves: dict[tuple, _Node] = {}
        self._counts: dict[tuple, int] = {}
        self._all = False

    def count(self, key: tuple) -> None:
        self.total += 1
        self._counts[key] = self._counts.get(key, 0) + 1

    def draw(self) -> None:
        if self.n >= self.total:
            self._all = True
            return
        rng = random.Random(f"span/sample/{self.seed}")
        raw: dict = {}
        for key in self._counts:   # first-seen order, as the items came
            node = raw
            for part in key[:-1]:
                node = node.setdefault(part, {})
            node[key[-1]] = key
        root = self._convert(raw, rng)
        for _ in range(self.n):
            if not _draw(root):
                break

    def _convert(self, obj, rng: random.Random) -> _Node:
        n = _Node()
        if isinstance(obj, tuple):   # a leaf: shuffling its local indices consumes the rng exactly as
            n.perm = array("l", range(self._counts[obj]))   # shuffling its items would
            rng.shuffle(n.perm)
            self._leaves[obj] = n
        else:
            n.children = [self._convert(obj[k], rng) for k in sorted(obj, key=str)]
            rng.shuffle(n.children)
        return n

    def select(self, key: tuple) -> bool:
        """In the second pass: is this item (the next one with this key) in the sample?"""
        if self._all:
            return True
        leaf = self._leaves[key]
        i = leaf.seen
        leaf.seen += 1
        return i in leaf.chosen


def stratified_indices(keys: list[tuple], n: int, seed=0) -> list[int]:
    """Pick n of the items (given by their strata keys, most important dimension first), spread evenly
    over every level: each direction, then each reasoning type, question format, polarity, date format,
    evaluation date and template in turn. Returns sorted indices (the original order)."""
    chooser = StratifiedChooser(n, seed)
    for k in keys:
        chooser.count(k)
    chooser.draw()
    return [i for i, k in enumerate(keys) if chooser.select(k)]


def sample_keyed(items: Iterable, keys: list[tuple], n: int, seed=0) -> list:
    idx = stratified_indices(keys, n, seed)
    items = list(items)
    return [items[i] for i in idx]
