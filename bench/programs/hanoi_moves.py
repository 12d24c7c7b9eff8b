"""Count the moves of the towers of Hanoi by plain recursion (an int-only call tree)."""


def hanoi_moves(n, src, dst, via):
    if n == 0:
        return 0
    return hanoi_moves(n - 1, src, via, dst) + 1 + hanoi_moves(n - 1, via, dst, src)


def setup(small=False):
    return 5 if small else 16, 0, 2, 1
