"""No compiled functions here: only syntax-checked."""


def report(x):
    print(x)
