"""Otsu threshold: histogram, then a Python loop over thresholds maximising between-class variance."""

import numpy as np


def otsu(img):
    hist, _ = np.histogram(img, bins=256, range=(0, 256))
    total = img.size
    sum_all = np.dot(np.arange(256), hist)
    w_b = 0.0
    sum_b = 0.0
    best = 0.0
    threshold = 0
    for t in range(256):
        w_b += hist[t]
        if w_b == 0:
            continue
        w_f = total - w_b
        if w_f == 0:
            break
        sum_b += t * hist[t]
        m_b = sum_b / w_b
        m_f = (sum_all - sum_b) / w_f
        between = w_b * w_f * (m_b - m_f) ** 2
        if between > best:
            best = between
            threshold = t
    return threshold, img > threshold


def setup(small=False):
    rng = np.random.default_rng(13)
    n = 16 if small else 512
    a = rng.normal(70, 15, (n, n))
    a[: n // 2] += 100
    return (np.clip(a, 0, 255).astype(np.uint8),)
