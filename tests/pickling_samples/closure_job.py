"""A script run as ``__main__`` whose compiled closure is sent to other processes by value
(tests/test_pickling.py): ``python closure_job.py spawn|cluster`` prints, as JSON, what the
worker saw when it called the closure; ``python closure_job.py dump FILE`` writes the pickle
for a process that has no copy of this file."""

import json
import multiprocessing
import sys
import warnings

import numpy as np

import astcompile


def helper(x):
    """A plain function of ``__main__``: inlined into the closure, it travels by value too."""
    return np.sin(x) * 2.0


def make(k):
    @astcompile.compile
    def scale(x):
        y = helper(x) * k
        return y + 1.0

    return scale


def run_in_worker(f, x):
    """Call ``f`` under ``explain`` in this process: how it ran, and what it warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explained = astcompile.explain(f, x)
    return {
        "graphs": explained.graph_count,
        "breaks": explained.graph_break_count,
        "compiled_calls": sum(run.compiled_calls for run in explained.regions),
        "plain_calls": sum(run.eager_calls for run in explained.regions),
        "targets": sorted({t for ts in explained.targets.values() for t in ts}),
        "warnings": [str(w.message) for w in caught if "astcompile" in str(w.message)],
        "right": bool(np.allclose(explained.out, np.sin(x) * 2.0 * 3.0 + 1.0, rtol=1e-14)),
    }


def in_spawn_pool(f, x):
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        return pool.apply(run_in_worker, (f, x))


def on_a_cluster(f, x):
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        return client.submit(run_in_worker, f, x, pure=False).result()


if __name__ == "__main__":
    f, x = make(3.0), np.linspace(-1.0, 1.0, 64)
    if sys.argv[1] == "dump":
        import pickle

        with open(sys.argv[2], "wb") as out:
            pickle.dump((f, x), out)
    else:
        run = {"spawn": in_spawn_pool, "cluster": on_a_cluster}[sys.argv[1]]
        print(json.dumps(run(f, x)))
