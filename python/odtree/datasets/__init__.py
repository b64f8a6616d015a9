"""Data sets: the field's binary benchmark files and a small default set for demos."""

from odtree.datasets._benchmark import (
    ENV_VAR,
    list_benchmarks,
    load_benchmark,
    read_benchmark_file,
)
from odtree.datasets._default import load_default

__all__ = ["ENV_VAR", "list_benchmarks", "load_benchmark", "load_default", "read_benchmark_file"]
