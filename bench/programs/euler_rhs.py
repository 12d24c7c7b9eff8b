"""Explicit Euler on the Lorenz system with a right-hand-side function returning a tuple."""


def lorenz(x, y, z, sigma, rho, beta):
    return sigma * (y - x), x * (rho - z) - y, x * y - beta * z


def euler_rhs(x, y, z, dt, steps):
    xs = []
    for _ in range(steps):
        dx, dy, dz = lorenz(x, y, z, 10.0, 28.0, 8.0 / 3.0)
        x, y, z = x + dt * dx, y + dt * dy, z + dt * dz
        xs.append(x)
    return x, y, z, max(xs)


def setup(small=False):
    return 1.0, 1.0, 1.0, 0.001, 20 if small else 20000
