"""All roots of a polynomial by Durand-Kerner iteration on a list of Python complex numbers."""


def horner_c(coeffs, z):
    acc = 0j
    for c in coeffs:
        acc = acc * z + c
    return acc


def durand_kerner(coeffs, iterations):
    lead = coeffs[0]
    monic = [c / lead for c in coeffs]
    n = len(coeffs) - 1
    roots = [complex(0.4, 0.9) ** k for k in range(n)]
    for _ in range(iterations):
        new = []
        for i in range(n):
            denom = 1 + 0j
            for j in range(n):
                if i != j:
                    denom *= roots[i] - roots[j]
            new.append(roots[i] - horner_c(monic, roots[i]) / denom)
        roots = new
    return sorted(roots, key=lambda z: (round(z.real, 9), round(z.imag, 9)))


def setup(small=False):
    if small:
        return [1.0, -6.0, 11.0, -6.0], 30
    return [1.0, 0.0, -3.0, 2.5, 1.0, -7.0, 0.5, 4.0, -2.0, 1.0, 3.0], 200
