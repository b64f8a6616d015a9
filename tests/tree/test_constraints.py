"""scikit-learn's tree constraints (min_samples_split, min_weight_fraction_leaf, monotonic_cst):
the search's optimum under each equals a brute force over every tree of tiny random data, and
the tree returned satisfies it."""

import itertools

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from odtree import (
    GreedyTreeClassifier,
    OptimalTreeClassifier,
    OptimalTreeCV,
    OptimalTreeRegressor,
    Solver,
)
from sklearn.exceptions import NotFittedError


def trees(columns, depth, path=()):
    """Every tree of depth at most ``depth`` over the 0/1 ``columns``, each column at most once
    on a path, as nested tuples: ``("leaf",)`` or ``("split", column, left, right)`` (left:
    the column is 0). Leaves carry no prediction: the callers choose it."""
    yield ("leaf",)
    if depth == 0:
        return
    for column in columns:
        if column in path:
            continue
        below = list(trees(columns, depth - 1, path + (column,)))
        for left in below:
            for right in below:
                yield ("split", column, left, right)


def leaves_of(tree, rows, X):
    """The (leaf, rows reaching it) pairs of ``tree`` for the row indices ``rows``."""
    if tree[0] == "leaf":
        return [rows]
    _, column, left, right = tree
    return leaves_of(left, rows[X[rows, column] == 0], X) + leaves_of(
        right, rows[X[rows, column] == 1], X)


def splits_of(tree, rows, X):
    """Every split of ``tree`` with the rows reaching it: (column, node, left, right rows)."""
    if tree[0] == "leaf":
        return []
    _, column, left, right = tree
    low, high = rows[X[rows, column] == 0], rows[X[rows, column] == 1]
    return ([(column, rows, low, high)] + splits_of(left, low, X) + splits_of(right, high, X))


def admissible(tree, X, weight, min_split=2, min_weight=0.0):
    """Whether every split of ``tree`` has two children with rows of non-zero weight, at
    least ``min_split`` such rows, and children weighing at least ``min_weight``."""
    rows = np.flatnonzero(weight > 0)
    for _, node, low, high in splits_of(tree, rows, X):
        if len(low) == 0 or len(high) == 0 or len(node) < min_split:
            return False
        if min(weight[low].sum(), weight[high].sum()) < min_weight * (1 - 1e-12):
            return False
    return True


def labelled_leaves(tree, labels_iter):
    """``tree`` with its leaves' predictions taken in order from ``labels_iter``."""
    if tree[0] == "leaf":
        return ("leaf", next(labels_iter))
    _, column, left, right = tree
    return ("split", column, labelled_leaves(left, labels_iter),
            labelled_leaves(right, labels_iter))


def predictions_below(tree):
    if tree[0] == "leaf":
        return [tree[1]]
    return predictions_below(tree[2]) + predictions_below(tree[3])


def monotone(tree, constraints):
    """scikit-learn's definition: at every split on a column constrained 1, every leaf of the
    low side (0) predicts no more than every leaf of the high side (-1: no less)."""
    if tree[0] == "leaf":
        return True
    _, column, left, right = tree
    sign = constraints[column]
    low, high = predictions_below(left), predictions_below(right)
    if sign == 1 and max(low) > min(high):
        return False
    if sign == -1 and min(low) < max(high):
        return False
    return monotone(left, constraints) and monotone(right, constraints)


def brute_force_errors(X, y, weight, depth, min_split=2, min_weight=0.0, constraints=None):
    """The least weighted misclassification of any admissible tree (with leaf predictions
    that satisfy ``constraints`` when given)."""
    rows = np.flatnonzero(weight > 0)
    best = np.inf
    for tree in trees(range(X.shape[1]), depth):
        if not admissible(tree, X, weight, min_split, min_weight):
            continue
        leaves = leaves_of(tree, rows, X)
        if constraints is None:
            cost = sum(min(weight[r][y[r] == 0].sum(), weight[r][y[r] == 1].sum())
                       for r in leaves)
            best = min(best, cost)
            continue
        for labels in itertools.product((0, 1), repeat=len(leaves)):
            if not monotone(labelled_leaves(tree, iter(labels)), constraints):
                continue
            cost = sum(weight[r][y[r] != label].sum()
                       for r, label in zip(leaves, labels, strict=True))
            best = min(best, cost)
    return best


def brute_force_squared_error(X, y, weight, depth, min_split=2, min_weight=0.0):
    """The least weighted squared error of any admissible tree."""
    rows = np.flatnonzero(weight > 0)

    def sse(r):
        w = weight[r]
        mean = np.dot(w, y[r]) / w.sum()
        return float(np.dot(w, (y[r] - mean) ** 2))

    return min(sum(sse(r) for r in leaves_of(tree, rows, X))
               for tree in trees(range(X.shape[1]), depth)
               if admissible(tree, X, weight, min_split, min_weight))


def fitted_tree(model):
    """The fitted tree as nested tuples over the input columns (binary features of 0/1
    columns: "x = 1" goes right, "x <= t" goes left), leaves labelled by class index."""
    tree, features = model.tree_, model.binary_features_

    def node(i):
        if tree.children_left[i] < 0:
            return ("leaf", int(model.node_classes_[i]))
        feature = features[tree.feature[i]]
        left, right = node(tree.children_left[i]), node(tree.children_right[i])
        if feature.kind == "threshold":  # x <= t holds on the low side, which goes right
            left, right = right, left
        return ("split", feature.column, left, right)

    return node(0)


@st.composite
def tiny_data(draw, n_features=3):
    n_rows = draw(st.integers(6, 12))
    bits = draw(st.lists(st.integers(0, 1), min_size=n_rows * n_features,
                         max_size=n_rows * n_features))
    X = np.array(bits).reshape(n_rows, n_features)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n_rows, max_size=n_rows)))
    weight = np.array(draw(st.lists(st.integers(0, 3), min_size=n_rows, max_size=n_rows)),
                      dtype=float)
    if not weight.any():
        weight[0] = 1.0
    return X, y, weight


def leaf_rows_and_weights(model):
    tree = model.tree_
    leaves = np.flatnonzero(tree.children_left < 0)
    return tree.n_node_samples[leaves], tree.weighted_n_node_samples[leaves]


@settings(max_examples=60, deadline=None)
@given(tiny_data(), st.integers(2, 8), st.sampled_from([1, 2]))
def test_min_samples_split_is_optimal_against_brute_force(data, min_split, depth):
    X, y, weight = data
    model = OptimalTreeClassifier(max_depth=depth, min_samples_split=min_split).fit(
        X, y, sample_weight=weight)
    expected = brute_force_errors(X, y, weight, depth, min_split=min_split)
    assert model.objective_ == pytest.approx(expected)
    assert model.status_ == "optimal"
    tree = model.tree_
    internal = np.flatnonzero(tree.children_left >= 0)
    assert np.all(tree.n_node_samples[internal] >= min_split)


@settings(max_examples=60, deadline=None)
@given(tiny_data(), st.sampled_from([0.05, 0.1, 0.2, 0.3, 0.5]), st.sampled_from([1, 2]))
def test_min_weight_fraction_leaf_is_optimal_against_brute_force(data, fraction, depth):
    X, y, weight = data
    model = OptimalTreeClassifier(max_depth=depth, min_weight_fraction_leaf=fraction).fit(
        X, y, sample_weight=weight)
    least = fraction * weight.sum()
    expected = brute_force_errors(X, y, weight, depth, min_weight=least)
    assert model.objective_ == pytest.approx(expected)
    if model.tree_.node_count > 1:
        _, leaf_weights = leaf_rows_and_weights(model)
        assert np.all(leaf_weights >= least * (1 - 1e-9))


@settings(max_examples=40, deadline=None)
@given(tiny_data(), st.sampled_from([{0: 1, 1: 5}, {0: 3, 1: 1}, "balanced"]),
       st.sampled_from([0.1, 0.25]))
def test_min_weight_fraction_leaf_counts_class_weight(data, class_weight, fraction):
    X, y, weight = data
    if len(np.unique(y[weight > 0])) < 2 or len(np.unique(y)) < 2:
        return
    model = OptimalTreeClassifier(max_depth=2, min_weight_fraction_leaf=fraction,
                                  class_weight=class_weight).fit(X, y, sample_weight=weight)
    from sklearn.utils.class_weight import compute_sample_weight
    total = weight * compute_sample_weight(class_weight, y)
    expected = brute_force_errors(X, y, total, 2, min_weight=fraction * total.sum())
    assert model.objective_ == pytest.approx(expected)


@settings(max_examples=40, deadline=None)
@given(tiny_data(), st.integers(2, 6), st.sampled_from([0.0, 0.2]))
def test_regressor_constraints_are_optimal_against_brute_force(data, min_split, fraction):
    X, _, weight = data
    y = np.arange(len(X), dtype=float) % 4 + X[:, 0] * 2.5
    model = OptimalTreeRegressor(max_depth=2, min_samples_split=min_split,
                                 min_weight_fraction_leaf=fraction).fit(
        X, y, sample_weight=weight)
    expected = brute_force_squared_error(X, y, weight, 2, min_split=min_split,
                                         min_weight=fraction * weight.sum())
    assert model.objective_ == pytest.approx(expected, abs=1e-9)


CONSTRAINTS = st.lists(st.sampled_from([-1, 0, 1]), min_size=3, max_size=3)


@settings(max_examples=80, deadline=None)
@given(tiny_data(), CONSTRAINTS, st.sampled_from([1, 2]), st.sampled_from(["murtree", "dl85"]))
def test_monotonic_cst_is_optimal_against_brute_force(data, constraints, depth, search):
    X, y, weight = data
    if len(np.unique(y)) < 2:
        return
    model = OptimalTreeClassifier(max_depth=depth, monotonic_cst=constraints,
                                  search=search).fit(X, y, sample_weight=weight)
    expected = brute_force_errors(X, y, weight, depth, constraints=constraints)
    assert model.objective_ == pytest.approx(expected)
    assert model.status_ == "optimal"
    assert monotone(fitted_tree(model), constraints)
    # the predictions never go against a constraint
    grid = np.array(list(itertools.product((0, 1), repeat=3)))
    predicted = model.predict(grid)
    for column, sign in enumerate(constraints):
        if sign == 0:
            continue
        low, high = grid[:, column] == 0, grid[:, column] == 1
        step = predicted[high] - predicted[low]  # the grid pairs rows differing in column
        assert np.all(step * sign >= 0)


@settings(max_examples=25, deadline=None)
@given(tiny_data(n_features=3), CONSTRAINTS)
# the lookahead first tree once deepened a depth-2 tree's children apart, breaking x0's rule
@example(
    (np.array([[0, 0, 0], [0, 0, 1], [0, 0, 0], [0, 1, 0], [1, 0, 0],
               [0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 0, 0], [0, 0, 0]]),
     np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 0]),
     np.array([0, 1, 0, 1, 1, 0, 1, 1, 2, 1], dtype=float)),
    [1, 0, -1],
)
def test_monotonic_cst_at_depth_3_and_with_other_constraints(data, constraints):
    X, y, weight = data
    if len(np.unique(y)) < 2:
        return
    model = OptimalTreeClassifier(max_depth=3, monotonic_cst=constraints, min_samples_split=3,
                                  ccp_alpha=0.0).fit(X, y, sample_weight=weight)
    expected = brute_force_errors(X, y, weight, 3, min_split=3, constraints=constraints)
    assert model.objective_ == pytest.approx(expected)
    assert monotone(fitted_tree(model), constraints)


def test_monotonic_cst_on_numeric_columns_follows_the_values():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 2))
    y = ((X[:, 0] + 0.8 * rng.normal(size=80)) > 0).astype(int)
    for sign in (1, -1):
        model = OptimalTreeClassifier(max_depth=3, monotonic_cst=[sign, 0]).fit(X, y)
        grid = np.linspace(-3, 3, 61)
        for other in (-1.0, 0.0, 1.0):
            rows = np.column_stack([grid, np.full_like(grid, other)])
            predicted = model.predict(rows)
            assert np.all(np.diff(predicted) * sign >= 0)
    free = OptimalTreeClassifier(max_depth=3).fit(X, y)
    increasing = OptimalTreeClassifier(max_depth=3, monotonic_cst=[1, 0]).fit(X, y)
    decreasing = OptimalTreeClassifier(max_depth=3, monotonic_cst=[-1, 0]).fit(X, y)
    assert free.objective_ <= increasing.objective_ <= decreasing.objective_


def test_solver_takes_the_constraints_per_binary_feature():
    X = np.array([[0, 1], [1, 1], [1, 0], [0, 0], [1, 1], [0, 0]], dtype=np.uint8)
    y = np.array([1, 0, 0, 1, 0, 1])
    solver = Solver(X, y)
    assert solver.solve(max_depth=1).objective == 0.0
    # the label falls as feature 0 rises: increasing, it is no better than feature 1
    assert solver.solve(max_depth=1, monotonic=[1, 0]).objective == 2.0
    assert solver.solve(max_depth=1, monotonic=[-1, 0]).objective == 0.0
    # both increasing: no split beats the leaf
    assert solver.solve(max_depth=1, monotonic=[1, 1]).objective == 3.0
    assert solver.solve(max_depth=1, min_samples_split=7).objective == 3.0
    assert solver.solve(max_depth=1, min_weight_leaf=3.5).objective == 3.0


@pytest.mark.parametrize("params, message", [
    ({"monotonic_cst": [1, 0, 0]}, "one constraint per feature"),
    ({"monotonic_cst": [2, 0]}, "only -1, 0 or 1"),
    ({"min_samples_split": 1}, "min_samples_split"),
    ({"min_weight_fraction_leaf": 0.6}, "min_weight_fraction_leaf"),
])
def test_bad_constraints_are_refused_clearly(params, message):
    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match=message):
        OptimalTreeClassifier(**params).fit(X, y)


def test_monotonic_cst_is_refused_where_it_cannot_apply():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [2, 1], [2, 0]])
    with pytest.raises(ValueError, match="multiclass"):
        OptimalTreeClassifier(monotonic_cst=[1, 0]).fit(X, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="misclassification"):
        OptimalTreeClassifier(monotonic_cst=[1, 0], cost_matrix=[[0, 1], [2, 0]]).fit(
            X, [0, 1, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="does not support monotonic_cst"):
        OptimalTreeRegressor(monotonic_cst=[1, 0]).fit(X, np.arange(6.0))
    model = OptimalTreeRegressor(monotonic_cst=[0, 0]).fit(X, np.arange(6.0))
    assert model.objective_ >= 0
    with pytest.raises(NotFittedError):
        OptimalTreeRegressor(monotonic_cst=[1, 0]).predict(X)


def test_monotonic_cst_refuses_categorical_and_missing_columns():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"colour": pd.Categorical(["r", "g", "b", "r", "g", "b"]),
                          "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    y = [0, 1, 1, 0, 1, 0]
    with pytest.raises(ValueError, match="categorical"):
        OptimalTreeClassifier(monotonic_cst=[1, 0]).fit(frame, y)
    assert OptimalTreeClassifier(monotonic_cst=[0, 1]).fit(frame, y).status_ == "optimal"
    # a boolean column is ordered, False < True, as scikit-learn reads it
    flags = pd.DataFrame({"flag": [True, False, True, False, True, False],
                          "size": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
    label = [1, 0, 1, 0, 1, 0]
    rising = OptimalTreeClassifier(max_depth=1, monotonic_cst=[1, 0]).fit(flags, label)
    assert rising.objective_ == 0
    falling = OptimalTreeClassifier(max_depth=1, monotonic_cst=[-1, 0]).fit(flags, label)
    assert falling.objective_ == 2
    X = np.array([[np.nan], [1.0], [2.0], [3.0], [4.0], [5.0]])
    with pytest.raises(ValueError, match="missing values"):
        OptimalTreeClassifier(monotonic_cst=[1], missing="split").fit(X, y)


@settings(max_examples=30, deadline=None)
@given(tiny_data(n_features=3), st.sampled_from([0.1, 0.2, 0.35]))
def test_greedy_min_weight_fraction_leaf_holds_and_weights_are_copies(data, fraction):
    X, y, weight = data
    if len(np.unique(y[weight > 0])) < 2:
        return
    weighted = GreedyTreeClassifier(min_cases=1, min_weight_fraction_leaf=fraction).fit(
        X, y, sample_weight=weight)
    leaves = weighted.tree_.children_left < 0
    if weighted.tree_.node_count > 1:
        least = fraction * weight.sum()
        assert np.all(weighted.tree_.weighted_n_node_samples[leaves] >= least * (1 - 1e-9))
    copies = weight.astype(int)
    repeated = GreedyTreeClassifier(min_cases=1, min_weight_fraction_leaf=fraction).fit(
        X.repeat(copies, axis=0), y.repeat(copies))
    grid = np.array(list(itertools.product((0, 1), repeat=3)))
    assert np.array_equal(weighted.predict(grid), repeated.predict(grid))


def test_optimal_tree_cv_passes_the_constraints_through():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 3))
    y = ((X[:, 0] - X[:, 1] + 0.7 * rng.normal(size=120)) > 0).astype(int)
    template = OptimalTreeClassifier(monotonic_cst=[1, -1, 0], min_samples_split=10,
                                     min_weight_fraction_leaf=0.05)
    model = OptimalTreeCV(depths=(1, 2, 3), cv=3, estimator=template).fit(X, y)
    best = model.best_estimator_
    assert best.monotonic_cst == [1, -1, 0]
    grid = np.linspace(-3, 3, 41)
    for column, sign in ((0, 1), (1, -1)):
        rows = np.zeros((len(grid), 3))
        rows[:, column] = grid
        assert np.all(np.diff(model.predict(rows)) * sign >= 0)
    tree = best.tree_
    leaves = tree.children_left < 0
    assert np.all(tree.weighted_n_node_samples[leaves] >= 0.05 * 120 - 1e-9)
    assert np.all(tree.n_node_samples[~leaves] >= 10)


def test_a_stopped_monotonic_search_returns_a_monotonic_tree():
    from odtree import NotOptimalWarning
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    constraints = np.zeros(X.shape[1], dtype=int)
    constraints[[0, 7, 20, 27]] = -1
    with pytest.warns(NotOptimalWarning):
        model = OptimalTreeClassifier(max_depth=4, monotonic_cst=constraints,
                                      time_limit=1.0).fit(X, y)
    assert model.status_ == "time_limit"
    assert model.tree_.node_count > 1
    assert model.lower_bound_ <= model.objective_
    assert monotone(fitted_tree(model), constraints)
    assert model.score(X, y) > 0.9


def test_command_line_takes_the_constraints(tmp_path, capsys):
    from odtree.cli import main

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    path = tmp_path / "data.csv"
    rows = "\n".join(f"{a},{b},{c}" for (a, b), c in zip(X, y, strict=True))
    path.write_text("a,b,y\n" + rows + "\n")
    args = ["fit", str(path), "--target", "y", "--max-depth", "2", "--format", "json",
            "--min-samples-split", "10", "--min-weight-fraction-leaf", "0.1"]
    assert main(args + ["--monotonic-cst=1,-1"]) == 0
    import json

    params = json.loads(capsys.readouterr().out)["params"]
    assert params["monotonic_cst"] == [1, -1]
    assert params["min_samples_split"] == 10
    assert params["min_weight_fraction_leaf"] == 0.1
    assert main(args + ["--monotonic-cst=1,0,0"]) != 0
    assert "--monotonic-cst" in capsys.readouterr().err
    assert main(args + ["--monotonic-cst=up"]) == 2
    assert "not a comma-separated list" in capsys.readouterr().err


@pytest.mark.parametrize("params", [{"monotonic_cst": [1, 0]}, {"min_samples_split": 5},
                                    {"min_weight_fraction_leaf": 0.1}])
def test_forests_refuse_constraints_their_pricing_cannot_keep(params):
    from odtree import LPBoostClassifier

    X, y = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3), np.array([0, 1, 1, 0] * 3)
    with pytest.raises(ValueError, match=next(iter(params))):
        LPBoostClassifier(estimator=OptimalTreeClassifier(**params)).fit(X, y)
