"""Count coprime pairs with Euclid's algorithm written out as a loop."""


def gcd_table(n):
    count = 0
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            x, y = a, b
            while y:
                x, y = y, x % y
            if x == 1:
                count += 1
    return count / (n * n)


def setup(small=False):
    return (12 if small else 150,)
