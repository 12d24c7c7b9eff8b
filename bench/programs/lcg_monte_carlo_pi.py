"""Pi by Monte Carlo with a hand-written linear congruential generator on Python ints."""


def lcg_monte_carlo_pi(samples, seed):
    state = seed
    inside = 0
    for _ in range(samples):
        state = (1103515245 * state + 12345) % 2147483648
        x = state / 2147483648.0
        state = (1103515245 * state + 12345) % 2147483648
        y = state / 2147483648.0
        if x * x + y * y <= 1.0:
            inside += 1
    return 4.0 * inside / samples


def setup(small=False):
    return (50 if small else 100000, 42)
