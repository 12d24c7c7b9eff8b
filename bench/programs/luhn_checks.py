"""Luhn checksums of card-number strings: digits by int(ch), every second one doubled."""


def luhn_valid(number):
    total = 0
    for pos, ch in enumerate(reversed(number)):
        d = int(ch)
        if pos % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def luhn_checks(numbers):
    valid = 0
    for number in numbers:
        if luhn_valid(number):
            valid += 1
    return valid


def setup(small=False):
    import random

    rng = random.Random(31)
    count = 10 if small else 5000
    return ([str(rng.randrange(10**15, 10**16)) for _ in range(count)],)
