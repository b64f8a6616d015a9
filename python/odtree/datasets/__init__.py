"""Data sets: the field's binary benchmark files, the real-valued sets of `continuous/`, and a
small default set for demos."""

from odtree.datasets._benchmark import (
    ENV_VAR,
    list_benchmarks,
    load_benchmark,
    read_benchmark_file,
)
from odtree.datasets._continuous import list_continuous, load_continuous
from odtree.datasets._default import load_default

__all__ = ["ENV_VAR", "list_benchmarks", "list_continuous", "load_benchmark", "load_continuous",
           "load_default", "read_benchmark_file"]
