"""java.util.Random's sequence, computed over whole arrays: what Flink's seeded RAND functions give.

Java's ``Random`` is a 48-bit linear congruential generator (``seed' = seed * 0x5DEECE66D + 0xB
mod 2**48``; ``new Random(s)`` starts from ``(s ^ 0x5DEECE66D) mod 2**48``). ``nextDouble()`` takes
two steps (26 then 27 high bits), ``nextInt(bound)`` one step per try (31 high bits; a power of two
scales, any other bound takes the remainder and retries when the try falls in the last, partial
range), as Java 17's ``java.util.Random``.

The n states after a state are computed in log2(n) numpy steps: the LCG is an affine map mod 2**48,
and ``f^m`` is one affine map too (uint64 arithmetic wraps mod 2**64, which 2**48 divides).

>>> JavaRandom(42).doubles(2).tolist()
[0.7275636800328681, 0.6832234717598454]
>>> JavaRandom(42).ints(np.full(5, 10)).tolist()
[0, 3, 8, 4, 0]
"""

from __future__ import annotations

import numpy as np

MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
MASK = (1 << 48) - 1
BAD_BOUND = "bound must be positive"
"""Java 17's ``IllegalArgumentException`` message of ``nextInt(bound)`` for a bound <= 0."""

_U = np.uint64


def scrambled(seed: int) -> int:
    """The initial state of ``new java.util.Random(seed)`` (``seed`` a Java long)."""
    return (seed ^ MULTIPLIER) & MASK


def states(state: int, n: int) -> np.ndarray:
    """The ``n`` states that follow ``state`` (uint64, each < 2**48), in order."""
    out = np.empty(n, _U)
    if n == 0:
        return out
    out[0] = (state * MULTIPLIER + ADDEND) & MASK
    a, c, m = MULTIPLIER, ADDEND, 1  # out[i + m] = (a * out[i] + c) mod 2**48
    with np.errstate(over="ignore"):
        while m < n:
            k = min(m, n - m)
            out[m:m + k] = (out[:k] * _U(a) + _U(c)) & _U(MASK)
            a, c, m = (a * a) & MASK, (a * c + c) & MASK, 2 * m
    return out


def step(st: np.ndarray) -> np.ndarray:
    """Each state of ``st`` advanced once (uint64 in, uint64 out)."""
    with np.errstate(over="ignore"):
        return (st * _U(MULTIPLIER) + _U(ADDEND)) & _U(MASK)


def _double(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``nextDouble()`` from its two states: ``((next(26) << 27) + next(27)) * 2**-53``."""
    bits = ((first >> _U(22)).astype(np.int64) << 27) + (second >> _U(21)).astype(np.int64)
    return bits.astype(np.float64) * (2.0 ** -53)


def _bounded(st: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One try of ``nextInt(bound)`` per state: the values and whether each try is kept.

    ``bound`` (int64, > 0) per state; a power of two is always kept.
    """
    r = (st >> _U(17)).astype(np.int64)  # next(31)
    m = bound - 1
    power = (bound & m) == 0
    val = np.where(power, (bound * r) >> 31, r % bound)
    kept = power | (r - val + m < 2 ** 31)  # Java's int sum overflows (negative) for a rejected try
    return val, kept


def check_bounds(bound: np.ndarray) -> None:
    """Raise Java's error for a bound <= 0 (``ValueError`` with :data:`BAD_BOUND`)."""
    if bound.size and int(bound.min()) <= 0:
        raise ValueError(BAD_BOUND)


class JavaRandom:
    """One ``new java.util.Random(seed)``: successive draws advance it, as Java's object.

    Args:
        seed: a Java long (an INT or BIGINT seed).
    """

    def __init__(self, seed: int):
        self.state = scrambled(seed)

    def doubles(self, n: int) -> np.ndarray:
        """The next ``n`` ``nextDouble()`` values (float64 in [0, 1))."""
        st = states(self.state, 2 * n)
        if n:
            self.state = int(st[-1])
        return _double(st[0::2], st[1::2])

    def ints(self, bound: np.ndarray) -> np.ndarray:
        """``nextInt(bound[i])`` for each i in order (int64 ``bound``, every one > 0).

        Raises:
            ValueError: :data:`BAD_BOUND` when a bound is <= 0 (nothing drawn).
        """
        bound = np.asarray(bound, np.int64)
        check_bounds(bound)
        n = len(bound)
        out = np.empty(n, np.int64)
        pos = 0
        while pos < n:
            rest = bound[pos:]
            constant = bool((rest == rest[0]).all())
            # a constant bound: the answers are the kept tries in order (about 2x spare for a large bound)
            tries = 2 * len(rest) + 16 if constant else len(rest)
            st = states(self.state, tries)
            val, kept = _bounded(st, np.full(tries, rest[0]) if constant else rest)
            if constant:
                at = np.flatnonzero(kept)[:len(rest)]
                out[pos:pos + len(at)] = val[at]
                last = at[-1] if len(at) == len(rest) else tries - 1
                self.state = int(st[last])
                pos += len(at)
                continue
            bad = np.flatnonzero(~kept)
            upto = len(rest) if not bad.size else int(bad[0])
            out[pos:pos + upto] = val[:upto]
            self.state = int(st[upto if bad.size else upto - 1])  # a rejected try is consumed too
            pos += upto
        return out


def first_doubles(seeds: np.ndarray) -> np.ndarray:
    """``new java.util.Random(seed).nextDouble()`` for each seed (int64 array)."""
    s0 = (seeds.astype(np.int64) ^ MULTIPLIER) & MASK
    first = step(s0.astype(_U))
    return _double(first, step(first))


def first_ints(seeds: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """``new java.util.Random(seed).nextInt(bound)`` for each (seed, bound) pair (int64 arrays).

    Raises:
        ValueError: :data:`BAD_BOUND` when a bound is <= 0.
    """
    bound = bound.astype(np.int64)
    check_bounds(bound)
    st = step(((seeds.astype(np.int64) ^ MULTIPLIER) & MASK).astype(_U))
    val, kept = _bounded(st, bound)
    todo = np.flatnonzero(~kept)
    while todo.size:  # rare: a try in the last, partial range of 2**31 values
        st[todo] = step(st[todo])
        v, k = _bounded(st[todo], bound[todo])
        val[todo] = v
        todo = todo[~k]
    return val
