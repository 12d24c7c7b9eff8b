"""The package list is found, not written by hand: a subpackage added under ``astcompile/`` ships
in the wheel without anyone remembering to list it (a hand-kept list once left out
``astcompile.dask``, and no installed copy could import the package). ``runtime/`` and
``kernels/`` are installed as ``astcompile.runtime`` and ``astcompile.kernels`` through the
``package-dir`` table in pyproject.toml, which holds everything else about the package."""

from setuptools import find_packages, setup


def packages_under(name: str, folder: str) -> list[str]:
    """``name`` and every package below ``folder``, named as installed."""
    return [name, *(f"{name}.{sub}" for sub in find_packages(folder))]


setup(
    packages=[
        *packages_under("astcompile", "astcompile"),
        *packages_under("astcompile.runtime", "runtime"),
        *packages_under("astcompile.kernels", "kernels"),
    ]
)
