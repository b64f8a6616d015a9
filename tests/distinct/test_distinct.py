"""distinct_trees and DistinctTreeSelector: the enumeration against brute force over every
feature subset, PSBE against SBE, early stops, time limits and bad input."""

import inspect
import itertools
import json
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from odtree import DistinctTreeSelector, GreedyTreeClassifier, _core, distinct_trees
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks


def _canonical(tree: dict) -> tuple:
    """A hashable form of a core tree dict: equal exactly when the trees are equal."""
    return tuple(tuple(np.asarray(tree[key]).ravel().tolist()) for key in
                 ("children_true", "children_false", "feature", "category", "class_counts"))\
        + (tuple(np.nan_to_num(tree["threshold"], nan=-1e300).tolist()),)


@st.composite
def tables(draw):
    """1 to 8 columns, each numeric (few values) or categorical, 1 to 30 rows, 1 to 3
    classes."""
    n_features = draw(st.integers(1, 8))
    n_rows = draw(st.integers(1, 30))
    n_classes = draw(st.integers(1, 3))
    values = draw(st.lists(st.lists(st.integers(0, 3), min_size=n_rows, max_size=n_rows),
                           min_size=n_features, max_size=n_features))
    is_categorical = draw(st.lists(st.booleans(), min_size=n_features, max_size=n_features))
    labels = draw(st.lists(st.integers(0, n_classes - 1), min_size=n_rows, max_size=n_rows))
    columns = np.array(values, dtype=np.float64).T.reshape(n_rows, n_features)
    categorical = [j for j in range(n_features) if is_categorical[j]]
    numeric = [j for j in range(n_features) if not is_categorical[j]]
    return (np.ascontiguousarray(columns[:, numeric]),
            np.ascontiguousarray(columns[:, categorical].astype(np.uint32)), categorical,
            np.array(labels, dtype=np.uint32), n_classes)


@settings(max_examples=500, deadline=None)
@given(data=tables(), criterion=st.sampled_from(["entropy", "gain_ratio"]),
       min_cases=st.integers(1, 3), order=st.sampled_from(["frontier_asc", "frontier_desc",
                                                            "index"]),
       incremental=st.booleans())
def test_enumeration_is_brute_force_over_all_subsets(data, criterion, min_cases, order,
                                                     incremental):
    params = {"criterion": criterion, "min_cases": min_cases}
    n_features = data[0].shape[1] + data[1].shape[1]
    expected = {_canonical(_core.greedy_tree(*data, **params, allowed_features=list(subset)))
                for size in range(n_features + 1)
                for subset in itertools.combinations(range(n_features), size)}
    search = _core.DistinctTreeSearch(*data, **params, order=order, incremental=incremental)
    found, stopped = search.next_batch((1 << n_features) + 1)
    assert stopped is None
    forms = [_canonical(tree) for _, tree in found]
    assert len(forms) == len(set(forms)), "a tree was reported twice"
    assert set(forms) == expected
    for features, tree in found:
        assert features == tree["used_features"].tolist()
    assert search.done and search.n_found == len(found) <= search.n_built


def _random_data(seed, n_features=6, n_rows=40):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n_rows, n_features)).astype(float)
    y = (X[:, 0] + rng.integers(0, 3, n_rows) > 3).astype(int)
    return X, y


@pytest.mark.parametrize("seed", range(5))
def test_yields_fitted_classifiers_and_counts_them(seed):
    X, y = _random_data(seed)
    trees = list(distinct_trees(X, y, min_cases=1))
    assert len(trees) == distinct_trees(X, y, min_cases=1, count_only=True)
    for features, model in trees:
        assert isinstance(model, GreedyTreeClassifier)
        assert features == tuple(model.used_features_.tolist())
        if not features:
            assert model.get_n_leaves() == 1
            continue
        # the classifier is the one GreedyTreeClassifier grows on those columns
        alone = GreedyTreeClassifier(criterion="entropy", min_cases=1).fit(X[:, list(features)], y)
        columns = np.array(features, dtype=np.int64)
        assert np.array_equal(columns[alone.used_features_], model.used_features_)
        assert np.array_equal(alone.predict(X[:, list(features)]), model.predict(X))
    assert len({features for features, _ in trees}) == len(trees)


def test_early_stop_and_resume():
    X, y = _random_data(0, n_features=8)
    trees = distinct_trees(X, y, min_cases=1)
    first = list(itertools.islice(trees, 3))
    assert len(first) == 3 and not trees.done
    rest = trees.count()
    assert trees.done and trees.stopped is None
    assert 3 + rest == distinct_trees(X, y, min_cases=1, count_only=True) == trees.n_found


def test_time_limit_returns_what_was_found():
    X, y = make_classification(n_samples=300, n_features=40, n_informative=10,
                               random_state=0)
    start = time.perf_counter()
    trees = distinct_trees(X, y, min_cases=1, time_limit=0.3)
    found = list(trees)
    assert time.perf_counter() - start < 5
    assert trees.stopped == "time_limit" and not trees.done and len(found) == trees.n_found > 0
    assert distinct_trees(X, y, min_cases=1, time_limit=0.0, count_only=True) <= 1


def test_no_features_in_the_search_is_one_leaf():
    X, y = _random_data(1)
    X[:] = 1.0  # constant columns: no tree splits
    [(features, model)] = list(distinct_trees(X, y))
    assert features == () and model.get_n_leaves() == 1


@pytest.mark.parametrize("bad", [
    {"min_cases": 0}, {"criterion": "gini"}, {"order": "random"}, {"time_limit": -1.0},
    {"max_depth": -1},
])
def test_bad_parameters(bad):
    X, y = _random_data(0)
    with pytest.raises(ValueError):
        distinct_trees(X, y, **bad)
    with pytest.raises(ValueError):
        DistinctTreeSelector(**{k: v for k, v in bad.items() if k != "order"} or
                             {"method": "forward"}).fit(X, y)


@pytest.mark.parametrize("X", [np.empty((5, 0)), np.array([[np.nan]] * 4),
                               np.array([[np.inf]] * 4)])
def test_bad_data(X):
    y = [0, 1] * (len(X) // 2) + [0] * (len(X) % 2)
    with pytest.raises(ValueError):
        distinct_trees(X, y)
    with pytest.raises(ValueError):
        DistinctTreeSelector().fit(X, y)


def _datasets():
    yield pytest.param(*load_iris(return_X_y=True), id="iris")
    yield pytest.param(*load_wine(return_X_y=True), id="wine")
    yield pytest.param(*load_breast_cancer(return_X_y=True), id="breast_cancer")
    for seed in range(3):
        yield pytest.param(*make_classification(
            n_samples=200, n_features=30, n_informative=4, n_redundant=6, flip_y=0.1,
            random_state=seed), id=f"random{seed}")


@pytest.mark.parametrize("X,y", list(_datasets()))
@pytest.mark.parametrize("cv", [None, 3])
def test_psbe_selects_what_sbe_selects(X, y, cv):
    fit = {method: DistinctTreeSelector(method=method, cv=cv, random_state=0).fit(X, y)
           for method in ("psbe", "sbe")}
    psbe, sbe = fit["psbe"], fit["sbe"]
    assert psbe.trace_ == sbe.trace_
    assert np.array_equal(psbe.support_, sbe.support_)
    assert np.array_equal(psbe.ranking_, sbe.ranking_)
    assert psbe.n_trees_built_ <= sbe.n_trees_built_
    errors = [error for _, error in psbe.trace_]
    assert all(later < earlier for earlier, later in itertools.pairwise(errors))
    assert psbe.trace_[0][0] == tuple(range(X.shape[1]))
    assert np.array_equal(psbe.get_support(indices=True), psbe.trace_[-1][0])
    assert (psbe.ranking_ == 1).sum() == psbe.support_.sum()
    assert psbe.transform(X).shape == (len(X), psbe.support_.sum())
    assert np.array_equal(psbe.estimator_.predict(psbe.transform(X)),
                          GreedyTreeClassifier(criterion="entropy")
                          .fit(psbe.transform(X), y).predict(psbe.transform(X)))


@pytest.mark.parametrize("method", ["psbe", "sbe"])
def test_threads_select_what_one_thread_selects(method):
    X, y = load_breast_cancer(return_X_y=True)
    one = DistinctTreeSelector(method=method, cv=3, random_state=0).fit(X, y)
    for n_jobs in (2, 4, -1):
        many = DistinctTreeSelector(method=method, cv=3, random_state=0, n_jobs=n_jobs).fit(X, y)
        assert many.trace_ == one.trace_
        assert many.n_trees_built_ == one.n_trees_built_
        assert np.array_equal(many.estimator_.predict(many.transform(X)),
                              one.estimator_.predict(one.transform(X)))


def test_selector_time_limit_keeps_the_last_subset():
    X, y = load_breast_cancer(return_X_y=True)
    selector = DistinctTreeSelector(method="sbe", time_limit=0.0, random_state=0).fit(X, y)
    assert selector.stopped_ == "time_limit"
    assert len(selector.trace_) == 1 and selector.support_.all()
    assert hasattr(selector, "estimator_")


@parametrize_with_checks([DistinctTreeSelector(), DistinctTreeSelector(method="sbe", cv=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# --------------------------------------------------------------------------- Ctrl-C

#: Searches far from finishing within a minute, each printing its outcome as JSON.
CTRL_C_CASES = {
    "iterate": """
        trees = distinct_trees(X, y, min_cases=1)
        found = sum(1 for _ in trees)
        print(json.dumps({"stopped": trees.stopped, "found": found, "n_found": trees.n_found,
                          "done": trees.done}), flush=True)
    """,
    "count": """
        trees = distinct_trees(X, y, min_cases=1)
        count = trees.count()
        print(json.dumps({"stopped": trees.stopped, "found": count, "n_found": trees.n_found,
                          "done": trees.done}), flush=True)
    """,
    "select": """
        selector = DistinctTreeSelector(method="sbe", min_cases=1, cv=10).fit(X, y)
        print(json.dumps({"stopped": selector.stopped_, "found": len(selector.trace_),
                          "n_found": len(selector.trace_),
                          "done": bool(selector.support_.sum() >= 1)}), flush=True)
    """,
}

CTRL_C_PRELUDE = """
import json, signal
from sklearn.datasets import make_classification
from odtree import DistinctTreeSelector, distinct_trees
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if the parent ignores SIGINT
X, y = make_classification(n_samples=2000, n_features=300, n_informative=30, random_state=0)
print("STARTS", flush=True)
"""


def _interrupt_child(script: str) -> tuple[int, str, str, float]:
    """Runs `script`, sends it a Ctrl-C 1.5 s into the search, and returns its exit code,
    output, error output and how long it took to end after the Ctrl-C."""
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "STARTS", child.stderr.read()
        time.sleep(1.5)  # well into the search
        assert child.poll() is None, "the search ended before the interrupt"
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
        waited = time.perf_counter() - sent
    finally:
        child.kill()
    return child.returncode, out, err, waited


def _raised_in_the_callers_loop(err: str) -> bool:
    """Whether a KeyboardInterrupt was raised in the child's own loop (its last frame is the
    script's), not in odtree: a Ctrl-C between two trees lands there, as Python does."""
    frames = [line for line in err.splitlines() if line.strip().startswith("File ")]
    return "KeyboardInterrupt" in err and bool(frames) and '"<string>"' in frames[-1]


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
@pytest.mark.parametrize("case", sorted(CTRL_C_CASES))
def test_ctrl_c_stops_the_search_and_keeps_what_was_found(case):
    script = CTRL_C_PRELUDE + textwrap.dedent(CTRL_C_CASES[case])
    returncode, out, err, waited = _interrupt_child(script)
    if case == "iterate" and _raised_in_the_callers_loop(err):
        # the few microseconds per tree spent in the caller's `sum(...)`: once in a
        # thousand runs the Ctrl-C lands there; a second try is independent of the first
        returncode, out, err, waited = _interrupt_child(script)
    assert returncode == 0, err
    assert "KeyboardInterrupt" not in err
    outcome = json.loads(out.strip().splitlines()[-1])
    assert outcome["stopped"] == "interrupted"
    assert outcome["found"] >= 1 and outcome["found"] == outcome["n_found"]
    # the search stops within a poll; the selector then grows its final tree, and the child
    # prints and exits: on a loaded machine that takes seconds, far less than the search
    assert waited < 10, f"Ctrl-C took {waited:.2f} s to act"


def test_a_ctrl_c_in_the_callers_loop_is_told_apart_from_one_in_odtree():
    in_loop = ('Traceback (most recent call last):\n  File "<string>", line 10, in <module>\n'
               '  File "<string>", line 10, in <genexpr>\nKeyboardInterrupt\n')
    in_odtree = in_loop.replace('KeyboardInterrupt',
                                '  File "/x/odtree/_distinct.py", line 90, in _advance\n'
                                'KeyboardInterrupt')
    assert _raised_in_the_callers_loop(in_loop)
    assert not _raised_in_the_callers_loop(in_odtree)
    assert not _raised_in_the_callers_loop("")


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
def test_a_second_ctrl_c_raises_keyboard_interrupt():
    script = CTRL_C_PRELUDE + textwrap.dedent("""
        for _ in range(100):  # many searches in a row, as a user's loop would run them
            distinct_trees(X, y, min_cases=1, count_only=True)
        print("LOOP FINISHED", flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "STARTS", child.stderr.read()
        time.sleep(1.5)
        child.send_signal(signal.SIGINT)
        time.sleep(0.3)  # the first stops one search, and the loop goes on to the next
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode != 0
    assert "KeyboardInterrupt" in err and "LOOP FINISHED" not in out


def test_the_family_shares_one_default_criterion():
    # a tree fitted by hand with the defaults on a listed subset is the tree the enumeration
    # lists, and the selector grows its trees the same way
    X, y = load_wine(return_X_y=True)
    listed = dict(itertools.islice(distinct_trees(X, y), 20))
    assert len(listed) == 20
    for features, model in listed.items():
        if not features:
            continue
        alone = GreedyTreeClassifier().fit(X[:, list(features)], y)
        columns = np.array(features, dtype=np.int64)
        assert np.array_equal(columns[alone.used_features_], model.used_features_)
        assert np.array_equal(alone.predict(X[:, list(features)]), model.predict(X))
    defaults = {GreedyTreeClassifier().criterion, DistinctTreeSelector().criterion,
                inspect.signature(distinct_trees).parameters["criterion"].default}
    assert defaults == {"entropy"}
