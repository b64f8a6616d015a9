"""The ``odtree`` command: fit an optimal tree on a file and print it, or run a demo.

Exit codes: 0 on success, 2 on bad input (arguments, missing or malformed file), 1 when something
odtree needs is not installed, 130 when interrupted before a tree was found.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
import warnings
from pathlib import Path

from odtree import __version__
from odtree._export import export_graphviz, export_text
from odtree._serialize import to_json
from odtree.datasets import load_default, read_benchmark_file

__all__ = ["main"]


class _Failure(Exception):
    """A problem to report in one line, with the exit code to return."""

    def __init__(self, message, exit_code=2):
        super().__init__(message)
        self.exit_code = exit_code


def main(argv=None) -> int:
    """Run the ``odtree`` command line.

    Parameters
    ----------
    argv : list of str or None, default=None
        The arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code: 0 on success, 2 on bad input, 1 when a dependency is missing.

    Examples
    --------
    >>> main(["fit", "missing.txt"])
    2
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and argument errors
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.run(args)
    except _Failure as exc:
        print(f"odtree: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("odtree: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="odtree", description="Learn provably optimal decision trees.")
    parser.add_argument("--version", action="version", version=f"odtree {__version__}")
    progress = argparse.ArgumentParser(add_help=False)
    progress.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="show the search time on stderr while fitting (default: when stderr is a terminal)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    fit = commands.add_parser(
        "fit", parents=[progress], help="fit a tree on a file and print it",
        description="Fit an optimal classification tree on FILE and print it. FILE is a "
                    "benchmark file (space-separated integers, the class first, 0/1 features) "
                    "or, when it ends in .csv, a CSV file with a header.")
    fit.add_argument("file", metavar="FILE", type=Path)
    fit.add_argument("--max-depth", type=int, default=3, help="maximum depth (default: 3)")
    fit.add_argument("--min-samples-leaf", type=int, default=1,
                     help="minimum training rows per leaf (default: 1)")
    fit.add_argument("--time-limit", type=float, default=None, metavar="S",
                     help="stop the search after S seconds and print the best tree found")
    fit.add_argument("--format", choices=("text", "json", "dot"), default="text",
                     help="output: indented text, odtree JSON or Graphviz DOT (default: text)")
    fit.add_argument("--target", metavar="COL", help="label column of a CSV file (required there)")
    fit.add_argument("-v", "--verbose", action="store_true",
                     help="print each better tree's objective, the proven bound and the gap on "
                          "stderr as the search goes (instead of the search time)")
    fit.set_defaults(run=_run_fit)

    demo = commands.add_parser(
        "demo", parents=[progress], help="fit a depth-3 tree on the breast cancer data",
        description="Fit a depth-3 tree on scikit-learn's breast cancer data and print it with "
                    "its training accuracy.")
    demo.set_defaults(run=_run_demo)
    return parser


def _run_fit(args) -> int:
    X, y = _read_data(args.file, args.target)
    watch = None
    if args.verbose:
        from odtree._progress import Watcher

        watcher = Watcher(verbose=1, stream=sys.stderr)
        watch = lambda event: watcher(*event)  # noqa: E731 (never stops the search)
    model = _estimator(max_depth=args.max_depth, min_samples_leaf=args.min_samples_leaf,
                       time_limit=args.time_limit, callback=watch)
    _fit(model, X, y, False if args.verbose else args.progress)
    if args.format == "json":
        print(to_json(model, indent=2))
    elif args.format == "dot":
        print(export_graphviz(model), end="")
    else:
        print(export_text(model), end="")
        print(f"objective {model.objective_:g}, status {model.status_}, optimal "
              f"{model.optimal_}, time {model.fit_time_:.2f} s", file=sys.stderr)
    return 0


def _run_demo(args) -> int:
    X, y, _ = load_default(as_frame=True)
    y = y.map({0: "malignant", 1: "benign"})
    model = _estimator(max_depth=3)
    _fit(model, X, y, args.progress)
    print(export_text(model), end="")
    print(f"training accuracy: {model.score(X, y):.3f}")
    return 0


def _read_data(path: Path, target):
    """``(X, y)`` from a benchmark file, or from a CSV file split on its ``target`` column."""
    if not path.is_file():
        raise _Failure(f"{path}: no such file")
    if path.suffix.lower() != ".csv":
        if target is not None:
            raise _Failure("--target applies to CSV files only; a benchmark file has its class "
                           "in the first column")
        try:
            return read_benchmark_file(path)
        except (OSError, ValueError) as exc:
            raise _Failure(str(exc)) from exc
    if target is None:
        raise _Failure(f"{path} is a CSV file: name its label column with --target COL")
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError) as exc:  # pandas parser errors are ValueErrors
        raise _Failure(f"cannot read {path} as CSV: {exc}") from exc
    if target not in frame.columns:
        raise _Failure(f"{path} has no column {target!r}; its columns are "
                       f"{', '.join(map(str, frame.columns))}")
    if frame.shape[1] < 2 or frame.shape[0] < 1:
        raise _Failure(f"{path} needs at least one row and one feature column besides {target!r}")
    return frame.drop(columns=[target]), frame[target]


def _estimator(**params):
    try:
        from odtree._classes import OptimalTreeClassifier
    except ImportError as exc:
        raise _Failure(f"the odtree estimators cannot be loaded ({exc}); reinstall odtree",
                       1) from exc
    return OptimalTreeClassifier(**params)


def _fit(model, X, y, progress) -> None:
    """Fit, showing progress if asked, then report the fit's warnings (time limit reached, ...)
    one per line, after the progress line is gone."""
    if progress is None:
        progress = sys.stderr.isatty()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if progress:
                _with_progress(lambda: model.fit(X, y), sys.stderr)
            else:
                model.fit(X, y)
    except ValueError as exc:  # parameters or data the estimator rejects
        raise _Failure(str(exc)) from exc
    for warning in caught:
        print(f"odtree: warning: {warning.message}", file=sys.stderr)


def _with_progress(task, stream, interval=1.0):
    """Run ``task()`` here while a thread writes ``searching... 3.0 s`` to ``stream`` every
    ``interval`` seconds, then erase that line and return the task's result.

    The task stays on the calling (main) thread so that Ctrl-C reaches the search, which then
    returns the best tree found so far; the extension releases the GIL while it searches.
    """
    start = time.perf_counter()
    stop = threading.Event()
    widest = 0

    def report():
        nonlocal widest
        while not stop.wait(interval):
            line = f"searching... {time.perf_counter() - start:.1f} s"
            widest = max(widest, len(line))
            stream.write("\r" + line)
            stream.flush()

    reporter = threading.Thread(target=report, name="odtree-progress", daemon=True)
    reporter.start()
    try:
        return task()
    finally:
        stop.set()
        reporter.join()
        if widest:
            stream.write("\r" + " " * widest + "\r")
            stream.flush()


if __name__ == "__main__":
    sys.exit(main())
