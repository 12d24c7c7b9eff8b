"""Josephus survivors for many circle sizes by popping from a list (Rosetta Code style)."""


def josephus_list(sizes, step):
    survivors = []
    for n in sizes:
        people = list(range(n))
        i = 0
        while len(people) > 1:
            i = (i + step - 1) % len(people)
            people.pop(i)
        survivors.append(people[0])
    return survivors


def setup(small=False):
    return (list(range(2, 8)) if small else list(range(2, 600))), 3
