"""Count words of a text into a dict, then return the counts of the most common as an array."""

import numpy as np


def word_counts(text, top):
    counts = {}
    for word in text.split():
        word = word.strip(".,").lower()
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return [w for w, _ in ranked], np.array([c for _, c in ranked])


def setup(small=False):
    import random

    rng = random.Random(125)
    words = ["alpha", "beta", "gamma", "delta", "Alpha.", "beta,", "eps", "zeta", "eta"]
    return " ".join(rng.choice(words) for _ in range(30 if small else 50000)), 5
