"""A small Particle class whose step() method a Python loop calls (object-style simulation)."""

import math


class Particle:
    def __init__(self, x, y, vx, vy):
        self.x, self.y, self.vx, self.vy = x, y, vx, vy

    def step(self, dt, g):
        self.vy -= g * dt
        self.x += self.vx * dt
        self.y += self.vy * dt
        if self.y < 0.0:
            self.y = -self.y
            self.vy = -0.9 * self.vy

    def energy(self, g):
        return 0.5 * (self.vx * self.vx + self.vy * self.vy) + g * self.y


def particle_class(n, steps, dt):
    ps = [Particle(float(i), 1.0 + i % 7, math.cos(i), math.sin(i)) for i in range(n)]
    for _ in range(steps):
        for p in ps:
            p.step(dt, 9.81)
    return sum(p.energy(9.81) for p in ps)


def setup(small=False):
    return (5, 10, 0.01) if small else (100, 200, 0.01)
