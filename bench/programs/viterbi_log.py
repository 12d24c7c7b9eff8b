"""Viterbi decoding of an HMM in log space: per-step loops over states, argmax, backtrack."""

import numpy as np


def viterbi_log(obs, log_start, log_trans, log_emit):
    n_states = log_start.shape[0]
    steps = obs.shape[0]
    score = np.empty((steps, n_states))
    back = np.zeros((steps, n_states), dtype=np.int64)
    score[0] = log_start + log_emit[:, obs[0]]
    for t in range(1, steps):
        for s in range(n_states):
            cand = score[t - 1] + log_trans[:, s]
            best = np.argmax(cand)
            back[t, s] = best
            score[t, s] = cand[best] + log_emit[s, obs[t]]
    path = np.empty(steps, dtype=np.int64)
    path[-1] = np.argmax(score[-1])
    for t in range(steps - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, score[-1].max()


def setup(small=False):
    rng = np.random.default_rng(11)
    k, symbols = (3, 4) if small else (6, 8)
    steps = 10 if small else 400
    start = np.log(rng.dirichlet(np.ones(k)))
    trans = np.log(rng.dirichlet(np.ones(k), size=k))
    emit = np.log(rng.dirichlet(np.ones(symbols), size=k))
    return rng.integers(0, symbols, steps), start, trans, emit
