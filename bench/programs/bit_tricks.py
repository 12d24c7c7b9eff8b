"""Integer bit tricks: popcount by x & (x - 1), Gray codes and bit reversal, summed."""


def bit_tricks(n):
    total = 0
    for x in range(n):
        c = 0
        y = x
        while y:
            y &= y - 1
            c += 1
        g = x ^ (x >> 1)
        r = 0
        v = x
        for _ in range(16):
            r = (r << 1) | (v & 1)
            v >>= 1
        total += c * 3 + (g & 0xFF) + (r % 97)
    return total


def setup(small=False):
    return (50 if small else 40_000,)
