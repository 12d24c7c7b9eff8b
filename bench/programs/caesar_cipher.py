"""Caesar cipher of a text by ord/chr arithmetic, then decoded and letter frequencies counted."""


def shift_text(text, k):
    out = []
    for ch in text:
        if "a" <= ch <= "z":
            out.append(chr((ord(ch) - 97 + k) % 26 + 97))
        elif "A" <= ch <= "Z":
            out.append(chr((ord(ch) - 65 + k) % 26 + 65))
        else:
            out.append(ch)
    return "".join(out)


def caesar_cipher(text, k):
    secret = shift_text(text, k)
    counts = [0] * 26
    for ch in secret.lower():
        if "a" <= ch <= "z":
            counts[ord(ch) - 97] += 1
    return shift_text(secret, -k) == text, counts


def setup(small=False):
    words = "the quick brown Fox jumps over the lazy Dog while numbers 123 stay".split()  # noqa: SIM905
    import random

    rng = random.Random(5)
    return " ".join(rng.choice(words) for _ in range(10 if small else 6000)), 7
