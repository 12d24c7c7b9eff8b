"""Character bigram counts of words in a dict with .get, then the five most frequent."""


def bigram_counts(words):
    counts = {}
    for word in words:
        w = word.lower()
        for i in range(len(w) - 1):
            pair = w[i : i + 2]
            counts[pair] = counts.get(pair, 0) + 1
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return top, len(counts)


def setup(small=False):
    import random

    rng = random.Random(71)
    letters = "etaoinshrdlucmfwypvbgkqjxz"
    words = [
        "".join(rng.choice(letters[:12]) for _ in range(rng.randint(2, 9))) for _ in range(8000)
    ]
    return (words[:10] if small else words,)
