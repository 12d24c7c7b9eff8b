"""Natural cubic spline through list points (tridiagonal solve), evaluated at many x (lists)."""


def natural_spline(xs, ys, queries):
    n = len(xs) - 1
    h = [xs[i + 1] - xs[i] for i in range(n)]
    alpha = [0.0] * (n + 1)
    for i in range(1, n):
        alpha[i] = 3.0 / h[i] * (ys[i + 1] - ys[i]) - 3.0 / h[i - 1] * (ys[i] - ys[i - 1])
    lo = [1.0] + [0.0] * n
    mu = [0.0] * (n + 1)
    z = [0.0] * (n + 1)
    for i in range(1, n):
        lo[i] = 2.0 * (xs[i + 1] - xs[i - 1]) - h[i - 1] * mu[i - 1]
        mu[i] = h[i] / lo[i]
        z[i] = (alpha[i] - h[i - 1] * z[i - 1]) / lo[i]
    c = [0.0] * (n + 1)
    b = [0.0] * n
    d = [0.0] * n
    for j in range(n - 1, -1, -1):
        c[j] = z[j] - mu[j] * c[j + 1]
        b[j] = (ys[j + 1] - ys[j]) / h[j] - h[j] * (c[j + 1] + 2.0 * c[j]) / 3.0
        d[j] = (c[j + 1] - c[j]) / (3.0 * h[j])
    out = []
    k = 0
    for q in queries:
        while k < n - 1 and q > xs[k + 1]:
            k += 1
        t = q - xs[k]
        out.append(ys[k] + b[k] * t + c[k] * t * t + d[k] * t * t * t)
    return out


def setup(small=False):
    n = 6 if small else 400
    xs = [i * 0.5 + 0.1 * (i % 3) for i in range(n)]
    ys = [((i * 37) % 11) / 11.0 for i in range(n)]
    m = 10 if small else 50_000
    top = xs[-1]
    return xs, ys, [top * k / m for k in range(m)]
