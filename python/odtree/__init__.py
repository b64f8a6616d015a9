"""odtree: provably optimal decision trees with a Rust core and a scikit-learn API."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("odtree")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
