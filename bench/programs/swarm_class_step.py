"""A Swarm class holding position and velocity arrays; step() loops over agents and reflects at walls."""

import numpy as np


class Swarm:
    def __init__(self, pos, vel):
        self.pos = pos.copy()
        self.vel = vel.copy()

    def step(self, dt, size):
        for k in range(self.pos.shape[0]):
            for d in range(2):
                x = self.pos[k, d] + dt * self.vel[k, d]
                if x < 0.0 or x > size:
                    self.vel[k, d] = -self.vel[k, d]
                    x = min(max(x, 0.0), size)
                self.pos[k, d] = x

    def spread(self):
        return self.pos.std(axis=0)


def swarm_class_step(pos, vel, steps):
    swarm = Swarm(pos, vel)
    for _ in range(steps):
        swarm.step(0.1, 10.0)
    return swarm.pos, swarm.spread()


def setup(small=False):
    rng = np.random.default_rng(84)
    n = 5 if small else 300
    return rng.random((n, 2)) * 10, rng.standard_normal((n, 2)), 3 if small else 40
