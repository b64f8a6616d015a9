"""dtreeviz draws an odtree classifier through ``to_sklearn``.

Skipped when dtreeviz is not installed. Drawing the tree (``view().svg()``) runs Graphviz's
``dot`` program; without it only that part is skipped.
"""

import shutil
import tempfile

import matplotlib
import numpy as np
import pandas as pd
import pytest
from odtree import OptimalTreeClassifier
from sklearn.datasets import load_breast_cancer

dtreeviz = pytest.importorskip("dtreeviz")
matplotlib.use("Agg")

FONT = "DejaVu Sans"  # matplotlib's own font; dtreeviz's default Arial is often missing


@pytest.fixture(autouse=True)
def _scratch(tmp_path, monkeypatch):
    """dtreeviz writes its node pictures to the temporary folder: use the test's own."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def _needs_dot():
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not on the PATH (Debian: apt-get install "
                    "graphviz), so dtreeviz cannot render its SVG")


def _tested_columns(model, nodes=None):
    """The input columns that the tree's (or the given nodes') tests read."""
    tree = model.tree_
    nodes = range(tree.node_count) if nodes is None else nodes
    return {model.binary_features_[tree.feature[node]].column
            for node in nodes if not tree.is_leaf(node)}


def _leaf_counts(viz):
    return {leaf.id: leaf.nsamples() for leaf in viz.shadow_tree.leaves}


def _model_leaf_counts(model):
    tree = model.tree_
    return {node: int(tree.n_node_samples[node]) for node in range(tree.node_count)
            if tree.is_leaf(node)}


@pytest.fixture(scope="module")
def cancer():
    data = load_breast_cancer()
    model = OptimalTreeClassifier(max_depth=2).fit(data.data, data.target)
    return data, model


@pytest.fixture
def cancer_viz(cancer):
    data, model = cancer
    return dtreeviz.model(model.to_sklearn(), data.data, data.target,
                          feature_names=list(data.feature_names),
                          class_names=list(data.target_names))


def test_dtreeviz_reads_the_exported_tree(cancer, cancer_viz):
    data, model = cancer
    shadow = cancer_viz.shadow_tree
    assert shadow.is_classifier()
    assert shadow.nnodes() == model.tree_.node_count
    # dtreeviz routes the training rows itself: the leaves hold what odtree's leaves hold
    assert _leaf_counts(cancer_viz) == _model_leaf_counts(model)
    # and the path of a row names the features odtree tests on it
    row = data.data[0]
    path = cancer_viz.explain_prediction_path(row)
    tested = _tested_columns(model, model.decision_path(row[np.newaxis]).indices)
    assert tested and all(data.feature_names[column] in path for column in tested)


def test_dtreeviz_plots_without_graphviz(cancer, cancer_viz):
    data, model = cancer
    names = list(data.feature_names)
    root = names[model.to_sklearn().tree_.feature[0]]
    import matplotlib.pyplot as plt

    cancer_viz.ctree_feature_space(features=[root], fontname=FONT)
    cancer_viz.ctree_leaf_distributions(fontname=FONT)
    cancer_viz.leaf_sizes(fontname=FONT)
    plt.close("all")
    # the Graphviz source is built in Python; its labels name the tested columns
    dot = cancer_viz.view(fancy=False, fontname=FONT).dot
    assert "digraph" in dot and root in dot


def test_dtreeviz_renders_svg(cancer, cancer_viz):
    _needs_dot()
    data, model = cancer
    tested = [data.feature_names[column] for column in _tested_columns(model)]
    # the node pictures come from matplotlib; "none" keeps their text as text in the SVG
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        svg = cancer_viz.view(fontname=FONT).svg()
    assert svg.lstrip().startswith(("<?xml", "<svg"))
    assert all(name in svg for name in tested)
    assert all(name in svg for name in data.target_names)
    plain = cancer_viz.view(fancy=False, fontname=FONT).svg()
    assert all(name in plain for name in tested)


@pytest.fixture(scope="module")
def coloured():
    """A frame with a categorical column, one-hot encoded as 0/1 columns, that matters."""
    rng = np.random.default_rng(0)
    n = 300
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.uniform(0, 1, n)
    noise = rng.uniform(0, 1, n)
    y = np.where(colour == "red", size > 0.3, size > 0.7).astype(int)
    frame = pd.DataFrame({"size": size, "noise": noise, "colour": pd.Categorical(colour)})
    X = pd.get_dummies(frame, columns=["colour"], dtype=int)
    return X, y, OptimalTreeClassifier(max_depth=2).fit(X, y)


def _coloured_viz(X, y, model):
    return dtreeviz.model(model.to_sklearn(), X, y, feature_names=list(X.columns),
                          class_names=["no", "yes"])


# dtreeviz routes the frame's rows as a bare array, so scikit-learn warns that the names are
# gone; it does the same with a DecisionTreeClassifier of its own fitted on the frame
@pytest.mark.filterwarnings("ignore:X does not have valid feature names:UserWarning")
def test_dtreeviz_on_a_frame_with_an_encoded_category(coloured):
    X, y, model = coloured
    tests = [model.binary_features_[model.tree_.feature[node]]
             for node in range(model.tree_.node_count) if not model.tree_.is_leaf(node)]
    assert tests[0].column_name == "colour_red"  # the root, a 0/1 test; then size thresholds
    assert {test.kind for test in tests} == {"binary", "threshold"}
    np.testing.assert_array_equal(model.to_sklearn().feature_names_in_, X.columns)
    viz = _coloured_viz(X, y, model)
    assert _leaf_counts(viz) == _model_leaf_counts(model)
    assert "colour_red" in viz.explain_prediction_path(X.iloc[0].to_numpy())
    dot = viz.view(fancy=False, fontname=FONT).dot
    assert "colour_red" in dot and "size" in dot


@pytest.mark.filterwarnings("ignore:X does not have valid feature names:UserWarning")
def test_dtreeviz_renders_the_frame(coloured):
    _needs_dot()
    viz = _coloured_viz(*coloured)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        svg = viz.view(fontname=FONT).svg()
    assert "colour_red" in svg and "size" in svg
