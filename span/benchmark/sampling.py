"""Stratified sampling: pick n items spread evenly over every level of their strata keys (most important
dimension first), without holding the items — only their keys, counted.

The draw walks a tree of the keys: at each level it takes the next child in a seeded shuffled order, so
every direction, then every reasoning type inside it, and so on, is visited in turn; a leaf (one full
key) gives its items in a seeded shuffled order. ``StratifiedChooser`` does this in two passes over the
keys (count, then select), so a caller can stream millions of cheap planned items and build only the
chosen ones.

Memory: a sample over 400 dates with every date format is ~7 M items in ~700,000 leaves, so nothing here
is an object per item or per leaf: a leaf is a packed integer key and a few slots of flat arrays, and
only internal nodes are Python lists. The seeded shuffles are made in exactly the order a recursive
build of the tree makes them (children in sorted order, each node after its children), so the sample
is the same as that of the plain recursive algorithm.
"""

from __future__ import annotations

import random
from array import array
from typing import Iterable

from .errors import GeneratorError

_BITS = 20  # per level: up to 1 M distinct values


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
        self._ids: list[dict[str, int]] = []     # per level: value -> id (first seen first)
        self._counts: dict[int, int] = {}         # packed ids -> items; after draw(): packed ranks -> leaf
        self._ranks: list[dict[str, int]] | None = None
        self._all = False
        # leaves, after draw(): how many of its items were met in pass 2, and the drawn local indices
        self._seen = array("i")
        self._chosen: dict[int, set[int]] = {}

    def _pack(self, key: tuple, table: list[dict[str, int]], grow: bool) -> int:
        if len(table) < len(key):
            if not grow:
                raise KeyError(key)
            table.extend({} for _ in range(len(key) - len(table)))
        packed = 0
        for level, part in zip(table, key):
            part = str(part)
            i = level.get(part)
            if i is None:
                if not grow:
                    raise KeyError(key)
                i = level[part] = len(level)
                if i >= 1 << _BITS:
                    raise GeneratorError(f"more than {1 << _BITS} distinct strata values at one level; sample fewer dates")
            packed = (packed << _BITS) | i
        return packed | (len(key) << (_BITS * len(key)))  # keys of different lengths never collide

    def count(self, key: tuple) -> None:
        self.total += 1
        p = self._pack(key, self._ids, True)
        self._counts[p] = self._counts.get(p, 0) + 1

    def draw(self) -> None:
        if self.n >= self.total:
            self._all = True
            return
        # children are visited in sorted order of their values: rank every level's values that way
        self._ranks = [{v: r for r, v in enumerate(sorted(level))} for level in self._ids]
        back = [{i: self._ranks[lv][v] for v, i in level.items()} for lv, level in enumerate(self._ids)]
        repacked = [self._repack(p, back) for p in self._counts]
        counts = array("i", self._counts.values())
        self._counts = {}
        order = sorted(range(len(repacked)), key=repacked.__getitem__)
        # the leaves in tree order (sorted), as a dict packed ranks -> leaf index for select()
        self._counts = {repacked[i]: li for li, i in enumerate(order)}
        counts = array("i", (counts[i] for i in order))
        del repacked, order
        self._seen = array("i", bytes(len(counts) * array("i").itemsize))
        # Which item a leaf gives depends on its shuffle, but how many it gives only on its count: draw
        # once to learn how many each leaf gives, then replay the same shuffles keeping just those.
        self._leaf_len = counts
        self._pos = array("i", bytes(len(counts) * array("i").itemsize))
        root = self._build(self._counts, counts, random.Random(f"span/sample/{self.seed}"), None)
        for _ in range(self.n):
            if not self._draw(root):
                break
        del root
        drawn = {leaf: m for leaf, m in enumerate(self._pos) if m}
        del self._pos
        self._build(self._counts, counts, random.Random(f"span/sample/{self.seed}"), drawn)

    @staticmethod
    def _repack(p: int, back: list[dict[int, int]]) -> int:
        levels = len(back)
        out = 0
        for lv in range(levels):
            i = (p >> (_BITS * (levels - 1 - lv))) & ((1 << _BITS) - 1)
            out = (out << _BITS) | back[lv][i]
        return out | (levels << (_BITS * levels))

    def _build(self, leaves: Iterable[int], counts: array, rng: random.Random, keep: dict[int, int] | None
               ) -> list:
        """The tree as nested lists [children, pos, done] with leaves as ints (their index); every
        shuffle made in post-order, children in sorted order — as the recursive build makes them. With
        ``keep`` (leaf -> how many items it gives), those leaves' first items go to ``_chosen``."""
        levels = len(self._ids)
        root: list = [[], 0, False]
        stack: list[list] = [root]    # the open nodes, root first
        prev: list[int] | None = None
        mask = (1 << _BITS) - 1
        for li, p in enumerate(leaves):
            path = [(p >> (_BITS * (levels - 1 - lv))) & mask for lv in range(levels)]
            common = 0
            if prev is not None:
                while common < levels - 1 and path[common] == prev[common]:
                    common += 1
            while len(stack) - 1 > common:  # close the nodes this leaf is not under
                node = stack.pop()
                rng.shuffle(node[0])
                stack[-1][0].append(node)
            for _ in range(common, levels - 1):
                stack.append([[], 0, False])
            perm = array("i", range(counts[li]))
            rng.shuffle(perm)
            if keep is not None and li in keep:
                self._chosen[li] = set(perm[: keep[li]])
            stack[-1][0].append(li)
            prev = path
        while len(stack) > 1:
            node = stack.pop()
            rng.shuffle(node[0])
            stack[-1][0].append(node)
        rng.shuffle(root[0])
        return root

    def _draw(self, node) -> bool:
        """Draw one item under `node` (counted in its leaf's position); False when it is exhausted."""
        if isinstance(node, int):
            pos = self._pos[node]
            if pos >= self._leaf_len[node]:
                return False
            self._pos[node] = pos + 1
            return True
        children = node[0]
        if node[2]:
            return False
        for _ in range(len(children)):
            child = children[node[1]]
            node[1] = (node[1] + 1) % len(children)
            if self._draw(child):
                return True
        node[2] = True
        return False

    def select(self, key: tuple) -> bool:
        """In the second pass: is this item (the next one with this key) in the sample?"""
        if self._all:
            return True
        leaf = self._counts[self._pack(key, self._ranks, False)]
        i = self._seen[leaf]
        self._seen[leaf] = i + 1
        chosen = self._chosen.get(leaf)
        return chosen is not None and i in chosen


def stratified_indices(keys: list[tuple], n: int, seed=0) -> list[int]:
    """Pick n of the items (given by their strata keys, most important dimension first), spread evenly
    over every level: each direction, then each reasoning type, question format, polarity, date format,
    evaluation date and template in turn. Returns sorted indices (the original order)."""
    chooser = StratifiedChooser(n, seed)
    for k in keys:
        chooser.count(k)
    chooser.draw()
    return [i for i, k in enumerate(keys) if chooser.select(k)]
