"""Modular exponentiation by squaring on Python ints, checked against pow(), over many bases."""


def power_mod(base, exp, mod):
    result = 1
    base %= mod
    while exp > 0:
        if exp & 1:
            result = result * base % mod
        base = base * base % mod
        exp >>= 1
    return result


def mod_exp_loop(count, mod):
    total = 0
    mismatches = 0
    for b in range(2, count + 2):
        r = power_mod(b, b * 7919 + 13, mod)
        if r != pow(b, b * 7919 + 13, mod):
            mismatches += 1
        total = (total + r) % mod
    return total, mismatches


def setup(small=False):
    return (10 if small else 3000, 1_000_000_007)
