"""The ``odtree`` command: fit an optimal tree on a file and print it, predict with a saved
tree, or run a demo.

Exit codes: 0 on success, 2 on bad input (arguments, missing or malformed file), 1 when something
odtree needs is not installed, 130 when interrupted before a tree was found, 141 when the reader
of the output went away (``odtree ... | head -1``; nothing is printed then).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
import warnings
from pathlib import Path

from . import __version__
from ._search import progress as _progress

# The modules that fit, print and read trees (and with them scikit-learn) are imported in the
# commands that use them, so that ``odtree --version`` and ``--help`` answer at once.

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
        code = args.run(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the try, not at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return _EXIT_BROKEN_PIPE
    except _Failure as exc:
        print(f"odtree: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("odtree: interrupted", file=sys.stderr)
        return 130


#: Exit code when the output's reader closed the pipe: 128 + SIGPIPE, as the shell reports it.
_EXIT_BROKEN_PIPE = 141


def _silence_stdout() -> None:
    """Point stdout at the null device, so that Python's own flush at exit does not raise a
    second ``BrokenPipeError`` (the recipe of the ``signal`` module's note on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a file (a test's capture)
        pass


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
        description="Fit an optimal classification (or, with --task regression, regression) "
                    "tree on FILE and print it. FILE is a benchmark file (space-separated "
                    "integers, the class first, 0/1 features) or, when it ends in .csv, a CSV "
                    "file with a header.")
    fit.add_argument("file", metavar="FILE", type=Path)
    fit.add_argument("--task", choices=("classification", "regression"),
                     default="classification",
                     help="classification (OptimalTreeClassifier, the default) or regression "
                          "(OptimalTreeRegressor, squared error)")
    fit.add_argument("--max-depth", type=int, default=3, help="maximum depth (default: 3)")
    fit.add_argument("--max-leaf-nodes", type=int, default=None, metavar="N",
                     help="at most N leaves (default: no limit but the depth)")
    fit.add_argument("--min-samples-leaf", type=int, default=1,
                     help="minimum training rows per leaf (default: 1)")
    fit.add_argument("--min-samples-split", type=int, default=2, metavar="N",
                     help="split a node only if it holds at least N training rows (default: 2)")
    fit.add_argument("--min-weight-fraction-leaf", type=float, default=0.0, metavar="F",
                     help="each leaf holds at least this fraction of the training rows "
                          "(default: 0)")
    fit.add_argument("--monotonic-cst", type=_monotonic_list, default=None, metavar="LIST",
                     help="one constraint per feature column, comma-separated: 1 (the class "
                          "never falls as the value grows), -1 (never rises) or 0; two classes "
                          "only; write --monotonic-cst=-1,0,1 when it starts with a minus")
    fit.add_argument("--ccp-alpha", type=float, default=0.0, metavar="ALPHA",
                     help="cost of each leaf, as a fraction of the training rows, as in "
                          "scikit-learn's cost-complexity pruning (default: 0)")
    fit.add_argument("--thresholds", choices=("auto", "exact", "quantile", "midpoints", "tree"),
                     default="auto",
                     help="how numeric columns are searched: 'exact' searches every threshold "
                          "of each numeric column, the others cut them into binary features; "
                          "'auto' is 'exact' where the settings allow it (default: auto)")
    fit.add_argument("--n-thresholds", type=int, default=10, metavar="N",
                     help="cuts per numeric column for --thresholds quantile (default: 10)")
    fit.add_argument("--missing", choices=("error", "split"), default="error",
                     help="what empty cells (missing values) of a CSV file do: 'error' stops, "
                          "'split' lets the tree learn where rows missing a value go "
                          "(default: error)")
    fit.add_argument("--time-limit", type=float, default=None, metavar="S",
                     help="stop the search after S seconds and print the best tree found")
    fit.add_argument("--memory-limit", type=_memory_size, default=None, metavar="SIZE",
                     help="cap the search's cache: bytes, or a size such as 500MB or 2GiB")
    fit.add_argument("--format", choices=("text", "json", "dot"), default="text",
                     help="output: indented text, odtree JSON or Graphviz DOT (default: text); "
                          "save the JSON to use it with 'odtree predict'")
    fit.add_argument("--target", metavar="COL", help="label column of a CSV file (required there)")
    fit.add_argument("-v", "--verbose", action="store_true",
                     help="print each better tree's objective, the proven bound and the gap on "
                          "stderr as the search goes (instead of the search time)")
    fit.set_defaults(run=_run_fit)

    predict = commands.add_parser(
        "predict", help="predict with a saved tree, one prediction per line",
        description="Predict the rows of DATA with the tree saved in MODEL (the JSON of "
                    "'odtree fit --format json' or of model.to_json()) and write one "
                    "prediction per line. DATA is read as 'odtree fit' reads it: a benchmark "
                    "file (its first column, the class, is ignored) or a CSV file with a header, "
                    "whose columns are matched to the model's by name.")
    predict.add_argument("model", metavar="MODEL", type=Path)
    predict.add_argument("data", metavar="DATA", type=Path)
    predict.add_argument("--target", metavar="COL",
                         help="a column of a CSV file to leave out (the label), for a model "
                              "that does not know its columns' names")
    predict.add_argument("-o", "--output", metavar="FILE", type=Path,
                         help="write the predictions to FILE instead of stdout")
    predict.set_defaults(run=_run_predict)

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
        from ._search.progress import Watcher

        watcher = Watcher(verbose=1, stream=sys.stderr)
        watch = lambda event: watcher(*event)  # noqa: E731 (never stops the search)
    model = _estimator(args.task, max_depth=args.max_depth, max_leaf_nodes=args.max_leaf_nodes,
                       min_samples_leaf=args.min_samples_leaf, ccp_alpha=args.ccp_alpha,
                       min_samples_split=args.min_samples_split,
                       min_weight_fraction_leaf=args.min_weight_fraction_leaf,
                       monotonic_cst=args.monotonic_cst,
                       thresholds=args.thresholds, n_thresholds=args.n_thresholds,
                       missing=args.missing, time_limit=args.time_limit,
                       memory_limit=args.memory_limit, callback=watch)
    _fit(model, X, y, False if args.verbose else args.progress)
    from ._json import to_json
    from .tree._export import export_graphviz, export_text

    if args.format == "json":
        print(to_json(model, indent=2))
    elif args.format == "dot":
        print(export_graphviz(model), end="")
    else:
        print(export_text(model), end="")
        print(f"objective {model.objective_:g}, status {model.status_}, optimal "
              f"{model.optimal_}, time {model.fit_time_:.2f} s", file=sys.stderr)
    return 0


def _run_predict(args) -> int:
    model = _read_model(args.model)
    X = _read_features(args.data, args.target, model)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            predictions = model.predict(X)
    except ValueError as exc:  # columns the model does not expect
        raise _Failure(f"cannot predict {args.data} with {args.model}: "
                       f"{_in_flags(str(exc), command='predict')}") from exc
    _print_warnings(caught)
    lines = (f"{value}\n" for value in predictions.tolist())
    if args.output is None:
        sys.stdout.writelines(lines)
        return 0
    try:
        with args.output.open("w") as stream:
            stream.writelines(lines)
    except OSError as exc:
        raise _Failure(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    return 0


def _run_demo(args) -> int:
    from .datasets import load_default
    from .tree._export import export_text

    X, y, _ = load_default(as_frame=True)
    y = y.map({0: "malignant", 1: "benign"})
    model = _estimator("classification", max_depth=3)
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
        from .datasets import read_benchmark_file

        try:
            return read_benchmark_file(path)
        except (OSError, ValueError) as exc:
            raise _Failure(str(exc)) from exc
    if target is None:
        raise _Failure(f"{path} is a CSV file: name its label column with --target COL")
    frame = _read_csv(path)
    if target not in frame.columns:
        raise _Failure(f"{path} has no column {target!r}; its columns are "
                       f"{', '.join(map(str, frame.columns))}")
    if frame.shape[1] < 2 or frame.shape[0] < 1:
        raise _Failure(f"{path} needs at least one row and one feature column besides {target!r}")
    return frame.drop(columns=[target]), frame[target]


def _monotonic_list(text: str) -> list[int]:
    """``--monotonic-cst``: comma-separated integers, such as ``1,0,-1``."""
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of -1, 0 and 1") from None


def _memory_size(text: str):
    """``--memory-limit``: a count of bytes, or a size that the estimator parses (500MB)."""
    return int(text) if text.strip().isdigit() else text


def _read_model(path: Path):
    """The fitted estimator saved as JSON in ``path``."""
    if not path.is_file():
        raise _Failure(f"{path}: no such file")
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise _Failure(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        from ._json import from_json

        return from_json(text)
    except ImportError as exc:
        raise _Failure(f"the odtree estimators cannot be loaded ({exc}); reinstall odtree",
                       1) from exc
    except (ValueError, TypeError) as exc:
        raise _Failure(f"{path} is not a saved odtree model: {exc}") from exc


def _read_features(path: Path, target, model):
    """The rows to predict: a benchmark file without its class column, or a CSV file's columns
    that the model was fitted on (by name when it knows the names)."""
    if not path.is_file() or path.suffix.lower() != ".csv":
        return _read_data(path, target)[0]  # its errors, or the benchmark file's features
    frame = _read_csv(path)
    if target is not None:
        if target not in frame.columns:
            raise _Failure(f"{path} has no column {target!r}")
        frame = frame.drop(columns=[target])
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        missing = [str(name) for name in names if name not in frame.columns]
        if missing:
            raise _Failure(f"{path} lacks the model's column(s) {', '.join(missing)}")
        return frame[list(names)]
    return frame


def _read_csv(path: Path):
    import pandas as pd

    try:
        return pd.read_csv(path)
    except (OSError, ValueError) as exc:  # pandas parser errors are ValueErrors
        raise _Failure(f"cannot read {path} as CSV: {exc}") from exc


def _estimator(task, **params):
    try:
        from .tree._classifier import OptimalTreeClassifier
        from .tree._regressor import OptimalTreeRegressor
    except ImportError as exc:
        raise _Failure(f"the odtree estimators cannot be loaded ({exc}); reinstall odtree",
                       1) from exc
    if task == "regression":
        return OptimalTreeRegressor(**params)
    return OptimalTreeClassifier(**params)


def _fit(model, X, y, progress) -> None:
    """Fit, showing progress if asked, then report the fit's warnings (time limit reached, ...)
    one per line, after the progress line is gone."""
    if progress is None:
        progress = sys.stderr.isatty()
    advice, _progress.NOTICE_ADVICE = _progress.NOTICE_ADVICE, (
        "pass --verbose to watch its progress, or --time-limit SECONDS to get the best tree "
        "found by then")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if progress:
                _with_progress(lambda: model.fit(X, y), sys.stderr)
            else:
                model.fit(X, y)
    except (ValueError, TypeError) as exc:  # parameters or data the estimator rejects
        raise _Failure(_in_flags(str(exc), model)) from exc
    finally:
        _progress.NOTICE_ADVICE = advice
    _print_warnings(caught)


#: The estimator parameters that ``odtree fit`` sets, and the flags that set them.
_FLAGS = {
    "max_depth": "--max-depth",
    "max_leaf_nodes": "--max-leaf-nodes",
    "min_samples_leaf": "--min-samples-leaf",
    "min_samples_split": "--min-samples-split",
    "min_weight_fraction_leaf": "--min-weight-fraction-leaf",
    "monotonic_cst": "--monotonic-cst",
    "ccp_alpha": "--ccp-alpha",
    "thresholds": "--thresholds",
    "n_thresholds": "--n-thresholds",
    "missing": "--missing",
    "time_limit": "--time-limit",
    "memory_limit": "--memory-limit",
    "verbose": "--verbose",
}
#: The flags that take no value: ``verbose=1`` reads ``--verbose``.
_SWITCHES = {"--verbose"}
_NAME = "|".join(sorted(_FLAGS, key=len, reverse=True))
#: scikit-learn's parameter check: "The 'ccp_alpha' parameter of OptimalTreeClassifier must".
_PARAMETER_CHECK = re.compile(rf"\bThe '({_NAME})' parameter of \w+ must")
#: A Python keyword argument: ``missing='split'``, ``max_depth=None``.
_KEYWORD = re.compile(rf"\b(?:pass )?({_NAME})=('[^']*'|\"[^\"]*\"|[^\s,;:)]+)")
#: A parameter named alone, quoted or not: only the names with ``_``, as the others are words
#: too ("missing values", "its thresholds", a column named 'missing').
_BARE = re.compile(rf"'?\b({'|'.join(name for name in _FLAGS if '_' in name)})\b'?")


def _in_flags(message: str, model=None, command="fit") -> str:
    """An estimator's error message in the command line's words: its parameters become the
    flags that set them (``missing='split'`` -> ``--missing split``, advice to pass one reads
    "use" in ``fit`` and "fit with" in ``predict``); a continuous target given to a
    classifier points to ``--task regression``, and a text target given to a regressor away
    from it.

    Examples
    --------
    >>> _in_flags("fill them, or pass missing='split' to learn where they go")
    'fill them, or use --missing split to learn where they go'
    >>> _in_flags("The 'ccp_alpha' parameter of OptimalTreeClassifier must be >= 0. Got -1.")
    '--ccp-alpha must be >= 0. Got -1.'
    >>> _in_flags("slow: pass verbose=1 to watch it, or set a time_limit")
    'slow: use --verbose to watch it, or set a --time-limit'
    """
    def keyword(match):
        flag, value = _FLAGS[match[1]], match[2].strip("'\"")
        said = flag if flag in _SWITCHES else f"{flag} {value}"
        if not match[0].startswith("pass "):
            return said
        return f"use {said}" if command == "fit" else f"fit with {said}"

    message = _PARAMETER_CHECK.sub(lambda match: f"{_FLAGS[match[1]]} must", message)
    message = _KEYWORD.sub(keyword, message)
    message = _BARE.sub(lambda match: _FLAGS[match[1]], message)
    kind = type(model).__name__
    if "label type: continuous" in message and kind.endswith("Classifier"):
        message = ("the target column holds continuous values, which a classification tree "
                   "cannot predict: fit a regression tree with --task regression, or give a "
                   "column of classes with --target")
    elif "could not convert string to float" in message and kind.endswith("Regressor"):
        message = (f"the target column holds text ({message.rsplit(': ', 1)[-1]}), which a "
                   "regression tree cannot predict: fit a classification tree (leave out "
                   "--task regression), or give a numeric column with --target")
    return message


def _print_warnings(caught) -> None:
    """Report recorded warnings one per line, without the source lines Python would show."""
    for warning in caught:
        print(f"odtree: warning: {_in_flags(str(warning.message))}", file=sys.stderr)


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
