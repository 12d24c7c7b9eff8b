"""Order-preserving de-duplication of a list of ints with a `seen` set and list.append."""


def dedupe_ordered(items):
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def setup(small=False):
    n = 20 if small else 6000
    return ([(i * 7) % 97 + (i % 13) for i in range(n)],)
