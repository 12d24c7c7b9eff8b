"""Roman numerals of a range of integers by greedy subtraction over a tuple table, joined."""

NUMERALS = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip


def roman_numerals(first, last):
    total_chars = 0
    out = []
    for n in range(first, last):
        parts = []
        for value, symbol in NUMERALS:
            while n >= value:
                parts.append(symbol)
                n -= value
        s = "".join(parts)
        total_chars += len(s)
        out.append(s)
    return total_chars, out[-3:]


def setup(small=False):
    return 1, 20 if small else 3999
