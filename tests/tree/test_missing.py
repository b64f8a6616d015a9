"""Missing values: a clear error by default; with ``missing="split"`` the
binarizer adds "x is missing" features and threshold features in both directions, the search
learns where missing rows go, and predict, export, saving and to_sklearn follow it."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from odtree import (
    Binarizer,
    LPBoostClassifier,
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    OptimalTreeCV,
    OptimalTreeRegressor,
    export_graphviz,
    export_text,
    from_json,
    to_sklearn,
)
from odtree.cli import main
from odtree.preprocessing._features import BinaryFeature
from odtree.tree._arrays import UNKNOWN
from odtree.tree._base import rows_per_node
from oracles import brute_force_objective
from sklearn.utils._param_validation import InvalidParameterError

pytest.importorskip("odtree._core")


def _one_column(missing_class, seed=0):
    """40 rows of x in [0, 10], class x > 5, and 8 rows missing x, of class
    ``missing_class``: a depth-1 tree is perfect only if the missing rows go with that class."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, 40)
    y = (x > 5).astype(int)
    x[:8] = np.nan
    y[:8] = missing_class
    return x[:, np.newaxis], y


def _is_missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _holds(feature, value) -> int:
    """What ``feature`` gives on ``value``, read from its documented meaning, not from the
    binarizer: 1 where its test holds, 0 where it fails, UNKNOWN where it cannot tell."""
    missing = _is_missing(value)
    if feature.kind == "missing":
        return int(missing)
    if missing:
        if feature.kind == "category":
            return 0
        return UNKNOWN if feature.missing_holds is None else int(feature.missing_holds)
    if feature.kind == "threshold":
        return int(value <= feature.value)
    if feature.kind == "category":
        return int(value == feature.value)
    return int(value)


def _walk(model, rows) -> list[int]:
    """The leaf each row reaches, walking the tree by hand; an UNKNOWN test goes to the
    child of more training weight (the left one on ties)."""
    tree, leaves = model.tree_, []
    for row in rows:
        node = 0
        while not tree.is_leaf(node):
            feature = model.binary_features_[tree.feature[node]]
            left, right = tree.children_left[node], tree.children_right[node]
            holds = _holds(feature, row[feature.column])
            if holds == UNKNOWN:
                holds = tree.weighted_n_node_samples[right] > tree.weighted_n_node_samples[left]
            node = right if holds else left
        leaves.append(node)
    return leaves


def _random_data(seed, n_rows=14, n_columns=3, share=0.25):
    """Small numeric data with a few distinct values, NaN in ``share`` of the cells, and
    random labels."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n_rows, n_columns)).astype(float)
    X[rng.random(X.shape) < share] = np.nan
    return X, rng.integers(0, 2, n_rows)


# ------------------------------------------------------------------ the default: an error


def test_missing_values_are_an_error_by_default():
    X, y = _one_column(0)
    for fit in (lambda: OptimalTreeClassifier().fit(X, y),
                lambda: OptimalTreeRegressor().fit(X, y.astype(float)),
                lambda: Binarizer().fit(X)):
        with pytest.raises(ValueError, match="contains NaN.*missing='split'"):
            fit()
    frame = pd.DataFrame({"age": X[:, 0]})
    with pytest.raises(ValueError, match="'age' has missing values.*missing='split'"):
        OptimalTreeClassifier().fit(frame, y)
    model = OptimalTreeClassifier(max_depth=1).fit(np.nan_to_num(X), y)
    with pytest.raises(ValueError, match="fitted with missing='error'"):
        model.predict(X)
    assert OptimalTreeClassifier().get_params()["missing"] == "error"
    assert not OptimalTreeClassifier().__sklearn_tags__().input_tags.allow_nan


def test_the_parameter_is_checked_and_sets_the_nan_tag():
    with pytest.raises(InvalidParameterError, match="missing"):
        OptimalTreeClassifier(missing="impute").fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(InvalidParameterError, match="missing"):
        Binarizer(missing=True).fit([[0.0], [1.0]])
    for estimator in (OptimalTreeClassifier, OptimalTreeRegressor, OptimalTreeClusterer,
                      Binarizer):
        assert estimator(missing="split").__sklearn_tags__().input_tags.allow_nan
    forest = LPBoostClassifier(estimator=OptimalTreeClassifier(missing="split"))
    assert forest.__sklearn_tags__().input_tags.allow_nan
    cv = OptimalTreeCV(estimator=OptimalTreeClassifier(missing="split"))
    assert cv.__sklearn_tags__().input_tags.allow_nan


def test_infinite_values_are_still_an_error():
    X, y = _one_column(0)
    X[9, 0] = np.inf
    with pytest.raises(ValueError, match="infinity|infinite"):
        OptimalTreeClassifier(missing="split").fit(X, y)
    with pytest.raises(ValueError, match="'x' has infinite values"):
        OptimalTreeClassifier(missing="split").fit(pd.DataFrame({"x": X[:, 0]}), y)


# ------------------------------------------------------------------ the features


def test_a_column_with_missing_values_gets_both_directions_and_a_missing_feature():
    X = np.array([[1.0, 5.0], [2.0, 6.0], [np.nan, 7.0], [4.0, 8.0]])
    binarizer = Binarizer(strategy="midpoints", missing="split").fit(X)
    assert binarizer.get_feature_names_out().tolist() == [
        "x0 <= 1.5", "x0 <= 1.5 or missing", "x0 <= 3", "x0 <= 3 or missing", "x0 is missing",
        "x1 <= 5.5", "x1 <= 6.5", "x1 <= 7.5"]  # x1 has no missing value: as before
    assert binarizer.transform(X)[2].tolist() == [0, 1, 0, 1, 1, 0, 0, 1]
    # thresholds come from the present values only, and equal those without the row
    assert Binarizer(strategy="midpoints").fit(X[[0, 1, 3]]).features_[:2] == [
        BinaryFeature(0, "x0", "threshold", 1.5), BinaryFeature(0, "x0", "threshold", 3.0)]
    quantiles = Binarizer(n_thresholds=2, missing="split").fit(X)
    assert [f.value for f in quantiles.features_ if f.column == 0 and f.kind == "threshold"] \
        == [1.5, 1.5, 3.0, 3.0]


def test_names_say_where_missing_rows_go():
    holds = BinaryFeature(0, "age", "threshold", 40.0, missing_holds=True)
    fails = BinaryFeature(0, "age", "threshold", 40.0, missing_holds=False)
    missing = BinaryFeature(0, "age", "missing")
    assert (holds.name, holds.negation) == ("age <= 40 or missing", "age > 40")
    assert (fails.name, fails.negation) == ("age <= 40", "age > 40 or missing")
    assert (missing.name, missing.negation) == ("age is missing", "age is not missing")
    with pytest.raises(ValueError, match="missing_holds"):
        BinaryFeature(0, "colour", "category", "red", missing_holds=True)


def test_zero_weight_rows_do_not_count_as_missing():
    X = np.array([[1.0], [2.0], [np.nan], [4.0]])
    binarizer = Binarizer(strategy="midpoints", missing="split").fit(X, sample_weight=[1, 1, 0, 1])
    assert binarizer.get_feature_names_out().tolist() == ["x0 <= 1.5", "x0 <= 3"]


def test_a_column_missing_everywhere_gives_no_feature():
    X = np.array([[np.nan, 1.0], [np.nan, 2.0], [np.nan, 3.0]])
    binarizer = Binarizer(strategy="midpoints", missing="split").fit(X)
    assert binarizer.get_feature_names_out().tolist() == ["x1 <= 1.5", "x1 <= 2.5"]


def test_categorical_columns_with_missing_values():
    frame = pd.DataFrame({
        "colour": pd.Categorical(["red", None, "blue", "red", "blue", None]),
        "size": pd.array(["s", "m", pd.NA, "m", "s", "s"], dtype="string"),
        "flag": [True, None, False, True, np.nan, False],
        "kind": ["a", None, "a", "a", "a", None],  # one category and missing: complements
    })
    binarizer = Binarizer(missing="split").fit(frame)
    assert binarizer.get_feature_names_out().tolist() == [
        "colour = blue", "colour = red", "colour is missing",
        "size = m", "size = s", "size is missing",
        "flag = False", "flag = True", "flag is missing",
        "kind is missing"]
    assert binarizer.transform(frame).tolist() == [
        [0, 1, 0, 0, 1, 0, 0, 1, 0, 0],
        [0, 0, 1, 1, 0, 0, 0, 0, 1, 1],
        [1, 0, 0, 0, 0, 1, 1, 0, 0, 0],
        [0, 1, 0, 1, 0, 0, 0, 1, 0, 0],
        [1, 0, 0, 0, 1, 0, 0, 0, 1, 0],
        [0, 0, 1, 0, 1, 0, 1, 0, 0, 1]]
    assert frame["size"].isna().tolist() == [False, False, True, False, False, False]  # unchanged
    # a category missing in transform only fails every test of its column
    complete = frame.iloc[[0, 2, 3]].copy()
    fitted = Binarizer(missing="split").fit(complete[["colour"]])
    assert fitted.transform(frame[["colour"]].iloc[[1]]).tolist() == [[0]]


# ------------------------------------------------------------------ the learned direction


@pytest.mark.parametrize(("missing_class", "true_branch", "false_branch"), [
    (0, "x0 <= {} or missing", "x0 > {}"),  # missing rows go with the small values
    (1, "x0 <= {}", "x0 > {} or missing"),  # missing rows go with the large values
])
def test_the_tree_learns_where_missing_rows_go(missing_class, true_branch, false_branch):
    X, y = _one_column(missing_class)
    model = OptimalTreeClassifier(max_depth=1, missing="split", thresholds="midpoints")
    model.fit(X, y)
    assert model.objective_ == 0 and model.score(X, y) == 1.0
    feature = model.binary_features_[model.tree_.feature[0]]
    assert feature.missing_holds is (missing_class == 0)
    threshold = f"{feature.value:.6g}"
    text = export_text(model)
    assert f"|--- {true_branch.format(threshold)}\n" in text
    assert f"|--- {false_branch.format(threshold)}\n" in text
    assert model.predict([[np.nan]]).tolist() == [missing_class]


def test_missing_rows_can_go_different_ways_at_different_splits():
    """Column 0 needs its missing rows sent left, column 1 right: no single imputation of
    both columns gives a perfect depth-2 tree, the learned directions do."""
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 10, (80, 2))
    y = ((X[:, 0] > 5) & (X[:, 1] > 5)).astype(int)
    X[:6, 0], y[:6] = np.nan, np.where(X[:6, 1] > 5, 1, 0)  # missing x0 acts as x0 > 5
    X[6:12, 1], y[6:12] = np.nan, 0  # missing x1 acts as x1 <= 5
    model = OptimalTreeClassifier(max_depth=2, missing="split", thresholds="midpoints")
    model.fit(X, y)
    assert model.objective_ == 0
    for fill in (-1.0, 11.0):
        imputed = OptimalTreeClassifier(max_depth=2, thresholds="midpoints").fit(
            np.where(np.isnan(X), fill, X), y)
        assert imputed.objective_ > 0


def test_the_missing_feature_is_used_when_it_is_the_best_split():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, (50, 2))
    X[:15, 1] = np.nan
    y = np.isnan(X[:, 1]).astype(int)  # missingness itself is the signal
    model = OptimalTreeClassifier(max_depth=1, missing="split").fit(X, y)
    assert model.objective_ == 0
    assert model.binary_features_[model.tree_.feature[0]] == BinaryFeature(1, "x1", "missing")
    assert export_text(model).splitlines()[1] == "|--- x1 is missing"
    assert "|--- x1 is not missing\n" in export_text(model)


# ------------------------------------------------------------------ optimality


@pytest.mark.parametrize("seed", range(6))
def test_the_objective_is_the_brute_force_optimum_over_the_features(seed):
    X, y = _random_data(seed)
    model = OptimalTreeClassifier(max_depth=2, missing="split", thresholds="midpoints")
    model.fit(X, y)
    binary = model.binarizer_.transform(X)
    assert (binary < 2).all()  # every training entry is known
    assert model.objective_ == brute_force_objective(binary.tolist(), y.tolist(),
                                                     [1.0] * len(y), 2, 1)
    # sending all missing rows of a column one way is among the trees it chose from
    for fill in (-1.0, 9.0):
        imputed = OptimalTreeClassifier(max_depth=2, thresholds="midpoints").fit(
            np.where(np.isnan(X), fill, X), y)
        assert model.objective_ <= imputed.objective_


def test_regression_with_missing_values_is_optimal_and_learns_the_direction():
    x = np.array([1.0, 2.0, 3.0, np.nan, 7.0, 8.0, 9.0, np.nan])
    target = np.array([0.0, 0.0, 0.0, 10.0, 10.0, 10.0, 10.0, 10.0])
    model = OptimalTreeRegressor(max_depth=1, missing="split").fit(x[:, None], target)
    assert model.objective_ == 0.0
    assert model.predict([[np.nan], [1.5], [8.5]]).tolist() == [10.0, 0.0, 10.0]


# ------------------------------------------------------------------ predict


def test_predictions_follow_the_features_as_a_walk_by_hand():
    X, y = _random_data(7, n_rows=60, n_columns=4, share=0.2)
    X[:, 3] = np.arange(60) % 5  # a column without missing values in fit
    model = OptimalTreeClassifier(max_depth=3, missing="split").fit(X, y)
    new = np.random.default_rng(8).integers(0, 4, size=(200, 4)).astype(float)
    new[np.random.default_rng(9).random(new.shape) < 0.3] = np.nan  # column 3 included
    assert model.apply(new).tolist() == _walk(model, new.tolist())
    leaves = model.apply(new)
    np.testing.assert_array_equal(model.predict(new),
                                  model.classes_[model.node_classes_[leaves]])
    path = model.decision_path(new).toarray()
    assert path[np.arange(len(new)), leaves].all()
    assert model.tree_.apply(model.binarizer_.transform(new)).tolist() == leaves.tolist()
    frame = pd.DataFrame(new, columns=["a", "b", "c", "d"])
    named = OptimalTreeClassifier(max_depth=3, missing="split").fit(
        pd.DataFrame(X, columns=["a", "b", "c", "d"]), y)
    assert named.apply(frame).tolist() == leaves.tolist()


def test_a_value_missing_only_in_predict_goes_to_the_heavier_child():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([0, 1, 1, 1, 1])
    model = OptimalTreeClassifier(max_depth=1, missing="split").fit(X, y)
    assert (model.binarizer_.transform([[np.nan]]) == UNKNOWN).all()
    assert model.predict([[np.nan]]).tolist() == [1]  # four rows went there, one the other way
    binary = OptimalTreeClassifier(max_depth=1, missing="split").fit(
        np.array([[0.0], [1.0], [1.0], [1.0]]), [0, 1, 1, 1])
    assert binary.binary_features_[0].kind == "binary"
    assert binary.predict([[np.nan]]).tolist() == [1]


def test_splits_no_missing_training_row_reaches_send_them_to_the_heavier_child():
    """Where no training row missing the tested column reaches a split, both directions fit
    equally; the fit takes the one a column without missing values would take."""
    for seed in range(5):
        X, y = _random_data(seed + 20, n_rows=40, n_columns=3, share=0.1)
        model = OptimalTreeClassifier(max_depth=3, missing="split").fit(X, y)
        binary = model.binarizer_.transform(X)
        rows = rows_per_node(model.tree_, binary)
        heavier_right = model.tree_.unknown_goes_right()
        for node in np.flatnonzero(~model.tree_.is_leaf_mask()):
            feature = model.binary_features_[model.tree_.feature[node]]
            if feature.missing_holds is None:
                continue
            if not np.isnan(X[rows[node], feature.column]).any():
                assert feature.missing_holds == heavier_right[node]


# ------------------------------------------------------------------ other estimators


def test_other_estimators_fit_and_predict_with_missing_values():
    X, y = _one_column(1)
    template = OptimalTreeClassifier(missing="split", thresholds="midpoints")
    forest = LPBoostClassifier(max_depth=1, estimator=template)
    assert forest.fit(X, y).score(X, y) == 1.0
    assert forest.predict([[np.nan]]).tolist() == [1]
    cv = OptimalTreeCV(depths=[1], cv=2, estimator=template)
    assert cv.fit(X, y).predict([[np.nan]]).tolist() == [1]
    with pytest.raises(ValueError, match="missing values: give the vectors"):
        OptimalTreeClusterer(max_depth=1, missing="split").fit(X)
    clusterer = OptimalTreeClusterer(max_depth=1, missing="split").fit(X, X_error=y[:, None])
    assert clusterer.predict([[np.nan]]).tolist() == [clusterer.labels_[0]]


# ------------------------------------------------------------------ saving, export, sklearn


def test_saved_models_keep_the_missing_features():
    X, y = _random_data(4, n_rows=50, share=0.2)
    model = OptimalTreeClassifier(max_depth=2, missing="split").fit(X, y)
    copy = from_json(model.to_json())
    assert copy.get_params()["missing"] == "split"
    assert copy.binary_features_ == model.binary_features_
    assert any(f.missing_holds is not None for f in copy.binary_features_)
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))
    binarizer = Binarizer.from_dict(json.loads(json.dumps(model.binarizer_.to_dict())))
    np.testing.assert_array_equal(binarizer.transform(X), model.binarizer_.transform(X))
    # files written before missing values: no "missing" parameter, no "missing_holds"
    data = model.binarizer_.to_dict()
    assert "missing_holds" not in BinaryFeature(0, "x", "threshold", 1.0).to_dict()
    del data["params"]["missing"]
    data["features"] = [f for f in data["features"] if f["kind"] == "threshold"
                        and "missing_holds" not in f]
    assert Binarizer.from_dict(data).missing == "error"
    bad = model.binarizer_.to_dict()
    bad["features"][0]["missing_holds"] = "yes"
    with pytest.raises(ValueError, match="malformed Binarizer data.*missing_holds"):
        Binarizer.from_dict(bad)


def test_export_shows_where_missing_rows_go():
    X, y = _one_column(1)
    model = OptimalTreeClassifier(max_depth=1, missing="split", thresholds="midpoints")
    model.fit(X, y)
    cut = f"{model.binary_features_[model.tree_.feature[0]].value:.6g}"
    dot = export_graphviz(model)
    assert f'label="x0 <= {cut}"' in dot and f'label="x0 > {cut} or missing"' in dot
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from odtree import plot_tree

    figure, ax = plt.subplots()
    try:
        plot_tree(model, ax=ax)
        texts = [t.get_text().replace("\n", " ") for t in ax.texts]
    finally:
        plt.close(figure)
    assert f"x0 > {cut} or missing" in texts


def test_to_sklearn_routes_missing_values_as_odtree_does():
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 10, (150, 3))
    y = ((X[:, 0] > 5) ^ (X[:, 1] > 3)).astype(int)
    X[rng.random(X.shape) < 0.15] = np.nan
    y[np.isnan(X[:, 2])] = 1
    X[:, 2] = np.where(np.isnan(X[:, 2]), np.nan, 1.0)  # 2 is only "is it missing"
    model = OptimalTreeClassifier(max_depth=3, missing="split").fit(X, y)
    kinds = {model.binary_features_[f].kind for f in model.tree_.feature[model.tree_.feature >= 0]}
    assert "missing" in kinds
    tree = to_sklearn(model)
    new = rng.uniform(0, 10, (400, 3))
    new[rng.random(new.shape) < 0.3] = np.nan
    np.testing.assert_array_equal(tree.predict(new), model.predict(new))
    np.testing.assert_allclose(tree.predict_proba(new), model.predict_proba(new), atol=1e-9)
    frame = pd.DataFrame({"colour": pd.Categorical(["red", None, "blue", None] * 5)})
    categorical = OptimalTreeClassifier(max_depth=1, missing="split").fit(
        frame, [0, 1, 0, 1] * 5)
    with pytest.raises(ValueError, match="category test"):
        to_sklearn(categorical)


# ------------------------------------------------------------------ command line


def test_the_command_line_takes_missing_split(capsys, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age,label\n" + "".join(
        f"{'' if i % 5 == 0 else 20 + i},{'yes' if i % 5 == 0 or 20 + i > 40 else 'no'}\n"
        for i in range(40)))
    assert main(["fit", str(path), "--target", "label", "--no-progress"]) == 2
    assert "--missing split" in capsys.readouterr().err  # the flag, not the parameter
    assert main(["fit", str(path), "--target", "label", "--missing", "split", "--thresholds",
                 "midpoints", "--format", "json", "--no-progress"]) == 0
    saved = capsys.readouterr().out
    model_path = tmp_path / "model.json"
    model_path.write_text(saved)
    model = from_json(saved)
    assert model.get_params()["missing"] == "split" and model.objective_ == 0
    new = tmp_path / "new.csv"
    new.write_text("id,age\n1,\n2,30\n3,50\n")  # an empty cell: a missing age
    assert main(["predict", str(model_path), str(new)]) == 0
    assert capsys.readouterr().out.splitlines() == ["yes", "no", "yes"]


# ------------------------------------------------------------------ the guide


def test_the_guide_example_prints_what_the_guide_shows(capsys):
    guide = Path(__file__).resolve().parents[2] / "docs" / "guide.md"
    section = re.search(r"^## Missing values.*?(?=^## )", guide.read_text(encoding="utf-8"),
                        re.S | re.M)
    assert section, "docs/guide.md lost its section on missing values"
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", section.group(0), re.S | re.M)
    assert [language for language, _ in blocks] == ["python", ""]
    names = {}
    exec(compile(blocks[0][1], str(guide), "exec"), names)  # noqa: S102 - our own guide
    assert capsys.readouterr().out == blocks[1][1]
    assert names["model"].optimal_


def test_an_estimator_without_the_option_does_not_offer_it():
    from odtree import GreedyTreeClassifier

    X = np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="GreedyTreeClassifier has no missing='split'"):
        GreedyTreeClassifier().fit(X, [0, 1, 0, 1])
