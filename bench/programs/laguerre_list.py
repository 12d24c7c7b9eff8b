"""Laguerre-style root polishing of a polynomial held as a list of Python complex numbers."""


def laguerre_list(coeffs, z, tol, max_iter):
    n = len(coeffs) - 1
    d1 = [0j] * n
    d2 = [0j] * n
    for k in range(1, n + 1):
        d1[k - 1] = k * coeffs[k]
    for k in range(1, n):
        d2[k - 1] = k * d1[k]
    step = tol + 1.0
    count = 0
    while abs(step) > tol and count < max_iter:
        p = coeffs[n]
        for k in range(n - 1, -1, -1):
            p = p * z + coeffs[k]
        dp = d1[n - 1]
        for k in range(n - 2, -1, -1):
            dp = dp * z + d1[k]
        ddp = d2[n - 2]
        for k in range(n - 3, -1, -1):
            ddp = ddp * z + d2[k]
        if abs(p) < 1e-300:
            break
        g = dp / p
        h = g * g - ddp / p
        a, b = g + h, g - h
        step = n / a if abs(a) > abs(b) else n / b
        z = z - step * 0.5
        count += 1
    return z, count


def setup(small=False):
    coeffs = [complex(1, 2), complex(-3, 0.5), complex(2, -1), complex(0.5, 0.25), complex(1, 0)]
    if not small:
        coeffs = coeffs * 6
    return coeffs, complex(0.3, 0.2), 1e-13, 40 if small else 400
