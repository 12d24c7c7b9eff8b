"""N-body steps on bodies kept as lists of floats, the way the language shootout writes it."""


def nbody_lists(positions, velocities, masses, steps, dt):
    n = len(masses)
    for _ in range(steps):
        for i in range(n):
            for j in range(i + 1, n):
                dx = positions[i][0] - positions[j][0]
                dy = positions[i][1] - positions[j][1]
                dz = positions[i][2] - positions[j][2]
                d2 = dx * dx + dy * dy + dz * dz
                mag = dt / (d2 * d2**0.5)
                bm = masses[j] * mag
                velocities[i][0] -= dx * bm
                velocities[i][1] -= dy * bm
                velocities[i][2] -= dz * bm
                bm = masses[i] * mag
                velocities[j][0] += dx * bm
                velocities[j][1] += dy * bm
                velocities[j][2] += dz * bm
        for i in range(n):
            for k in range(3):
                positions[i][k] += dt * velocities[i][k]
    return positions


def setup(small=False):
    import random

    rng = random.Random(106)
    n = 5
    positions = [[rng.uniform(-5, 5) for _ in range(3)] for _ in range(n)]
    velocities = [[rng.uniform(-0.1, 0.1) for _ in range(3)] for _ in range(n)]
    masses = [rng.uniform(0.5, 2.0) for _ in range(n)]
    return positions, velocities, masses, 3 if small else 400, 0.01
