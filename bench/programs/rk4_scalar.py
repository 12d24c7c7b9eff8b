"""Classic Runge-Kutta on a scalar ODE (a damped oscillator as two Python floats)."""


def rk4_scalar(x0, v0, k, c, dt, steps):
    x, v = x0, v0
    for _ in range(steps):
        ax1 = -k * x - c * v
        x2, v2 = x + 0.5 * dt * v, v + 0.5 * dt * ax1
        ax2 = -k * x2 - c * v2
        x3, v3 = x + 0.5 * dt * v2, v + 0.5 * dt * ax2
        ax3 = -k * x3 - c * v3
        x4, v4 = x + dt * v3, v + dt * ax3
        ax4 = -k * x4 - c * v4
        x += dt / 6.0 * (v + 2 * v2 + 2 * v3 + v4)
        v += dt / 6.0 * (ax1 + 2 * ax2 + 2 * ax3 + ax4)
    return x, v


def setup(small=False):
    return 1.0, 0.0, 4.0, 0.1, 0.001, 20 if small else 100000
