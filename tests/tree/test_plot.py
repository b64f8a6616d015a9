"""Pictures a person can read: plot_tree's layout, and scikit-learn's keyword arguments of
plot_tree, export_text and export_graphviz on fitted odtree estimators."""

import io
import itertools

import numpy as np
import pytest
from odtree import (
    OptimalTreeClassifier,
    OptimalTreeClusterer,
    export_graphviz,
    export_text,
    from_sklearn,
    plot_tree,
)
from sklearn.datasets import load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

IRIS_NAMES = ["sepal length", "sepal width", "petal length", "petal width"]


@pytest.fixture(scope="module")
def iris_tree():
    X, y = load_iris(return_X_y=True)
    return OptimalTreeClassifier(max_depth=2).fit(X, y)


def tree_of_depth(depth):
    """A fitted odtree classifier of the given depth: optimal on iris for small depths, an
    imported scikit-learn tree on wine (long feature names) for deep ones."""
    if depth <= 3:
        X, y = load_iris(return_X_y=True)
        return OptimalTreeClassifier(max_depth=depth).fit(X, y)
    X, y = load_wine(return_X_y=True, as_frame=True)
    return from_sklearn(DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y))


def drawn_texts(figure):
    """The non-empty texts of the figure with their extents (the text itself, not arrows)."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    texts = [t for ax in figure.axes for t in ax.texts if t.get_text()]
    return texts, [Text.get_window_extent(t, renderer) for t in texts]


def assert_legible(figure):
    texts, boxes = drawn_texts(figure)
    for (a, box_a), (b, box_b) in itertools.combinations(zip(texts, boxes, strict=True), 2):
        assert not box_a.overlaps(box_b), (a.get_text(), b.get_text())
    area = figure.bbox
    for text, box in zip(texts, boxes, strict=True):
        assert (area.x0 <= box.x0 and box.x1 <= area.x1 and area.y0 <= box.y0
                and box.y1 <= area.y1), text.get_text()


@pytest.mark.parametrize("depth", [2, 3, 4, 5])
@pytest.mark.parametrize("given_ax", [True, False])
def test_plot_tree_labels_never_overlap(depth, given_ax):
    model = tree_of_depth(depth)
    assert model.tree_.max_depth == depth
    if given_ax:
        figure, ax = plt.subplots()  # the default figure size
        annotations = plot_tree(model, ax=ax, filled=True)
        assert tuple(figure.get_size_inches()) == tuple(plt.rcParams["figure.figsize"])
        # the text shrinks with the tree, but no more than it must
        assert annotations[0].get_fontsize() >= {2: 6, 3: 4, 4: 2.5, 5: 2.5}[depth]
    else:
        figure = plt.figure()
        annotations = plot_tree(model, filled=True)
        # a figure plot_tree was not given is sized to the tree, for readable text
        assert annotations[0].get_fontsize() >= 8
    try:
        assert len(annotations) == model.tree_.node_count
        assert_legible(figure)
    finally:
        plt.close(figure)


def test_a_figure_plot_tree_was_not_given_is_sized_to_the_tree():
    sizes = []
    for depth in (2, 3, 4, 5):
        model = tree_of_depth(depth)
        figure = plt.figure()
        try:
            annotations = plot_tree(model, filled=True)
            sizes.append((model.get_n_leaves(), *figure.get_size_inches()))
            # legible when saved at 100 dpi: 9-point text is 12 pixels high
            assert annotations[0].get_fontsize() >= 8
            figure.set_dpi(100)
            assert_legible(figure)
        finally:
            plt.close(figure)
    leaves, widths, heights = zip(*sizes, strict=True)
    assert list(leaves) == sorted(leaves) and leaves[-1] >= 12
    assert list(widths) == sorted(widths) and widths[-1] > 3 * widths[0]
    assert list(heights) == sorted(heights) and heights[-1] > heights[0]
    # about the same room per leaf, however wide the tree
    assert widths[-1] / leaves[-1] > 0.5 * widths[0] / leaves[0]


def test_plot_tree_large_text_for_a_small_tree(iris_tree):
    figure, ax = plt.subplots()
    try:
        annotations = plot_tree(iris_tree, ax=ax)
        assert annotations[0].get_fontsize() >= 9
        assert_legible(figure)
    finally:
        plt.close(figure)


def plot_texts(model, **kwargs):
    """Node texts and edge texts drawn by plot_tree."""
    figure, ax = plt.subplots()
    try:
        nodes = plot_tree(model, ax=ax, **kwargs)
        node_texts = [a.get_text() for a in nodes]
        edge_texts = [t.get_text().replace("\n", " ") for t in ax.texts if t not in nodes]
        return nodes, node_texts, edge_texts
    finally:
        plt.close(figure)


def test_plot_tree_keywords(iris_tree):
    _, plain, edges = plot_texts(iris_tree)
    assert all(text.startswith("samples = ") for text in plain)
    assert any(text.startswith("x2 <= ") or text.startswith("x3 <= ") for text in edges)

    _, texts, _ = plot_texts(iris_tree, node_ids=True)
    assert texts[0].startswith("node #0\n") and texts[1].startswith("node #1\n")

    _, texts, _ = plot_texts(iris_tree, class_names=["setosa", "versicolor", "virginica"])
    assert any("class = setosa" in text for text in texts)
    _, texts, _ = plot_texts(iris_tree, class_names=False)
    assert not any("class" in text for text in texts)

    _, _, edges = plot_texts(iris_tree, feature_names=IRIS_NAMES)
    assert any(text.startswith("petal") for text in edges)
    assert not any(text.startswith("x") for text in edges)

    _, texts, _ = plot_texts(iris_tree, impurity=True)
    assert "gini = 0.67" in texts[0]
    _, texts, _ = plot_texts(iris_tree, proportion=True)
    assert "samples = 100%" in texts[0] and "value = [0.33, 0.33, 0.33]" in texts[0]
    _, texts, _ = plot_texts(iris_tree, proportion=True, precision=3)
    assert "value = [0.333, 0.333, 0.333]" in texts[0]

    _, texts, _ = plot_texts(iris_tree, label="root")
    assert texts[0].startswith("samples = ")
    assert not any("=" in text for text in texts[1:])
    _, texts, _ = plot_texts(iris_tree, label="none")
    assert texts[0].startswith("150\n")

    nodes, texts, edges = plot_texts(iris_tree, max_depth=0)
    assert texts[1:] == ["(...)", "(...)"] and len(edges) == 2

    nodes, _, _ = plot_texts(iris_tree, fontsize=5, filled=True, rounded=False)
    assert nodes[0].get_fontsize() == 5
    assert type(nodes[0].get_bbox_patch().get_boxstyle()).__name__ == "Square"
    colours = {tuple(n.get_bbox_patch().get_facecolor()) for n in nodes}
    assert len(colours) > 1
    nodes, _, _ = plot_texts(iris_tree)
    assert type(nodes[0].get_bbox_patch().get_boxstyle()).__name__ == "Round"
    with pytest.raises(ValueError, match="label"):
        plot_texts(iris_tree, label="leaves")
    with pytest.raises(ValueError, match="max_depth"):
        plot_texts(iris_tree, max_depth=-1)


def test_export_text_keywords(iris_tree):
    text = export_text(iris_tree, feature_names=IRIS_NAMES,
                       class_names=["setosa", "versicolor", "virginica"])
    header, first = text.splitlines()[:2]
    assert header.startswith("# optimal over ")
    assert first.startswith("|--- petal") and "class: setosa" in text
    wide = export_text(iris_tree, spacing=5)
    assert wide.splitlines()[1].startswith("|----- ") and "\n|     |----- " in wide
    assert export_text(iris_tree, max_depth=0).endswith("\n|--- truncated branch of depth 2\n")
    weights = export_text(iris_tree, show_weights=True)
    assert "weights: [0, 48, 4] class: 1" in weights
    with pytest.raises(ValueError, match="spacing"):
        export_text(iris_tree, spacing=0)
    with pytest.raises(ValueError, match="feature_names"):
        export_text(iris_tree, feature_names=["a"])


def test_export_text_decimals_for_regression_like_values():
    X, y = load_iris(return_X_y=True)
    model = OptimalTreeClusterer(max_depth=1).fit(X[:, 2:])
    for decimals in (1, 3):
        first = ", ".join(f"{v:.{decimals}f}" for v in model.cluster_centers_[0])
        assert f"cluster: 0 centroid: [{first}]" in export_text(model, decimals=decimals)


def test_export_graphviz_keywords(iris_tree, tmp_path):
    dot = export_graphviz(iris_tree)
    assert export_graphviz(iris_tree, out_file=None) == dot
    path = tmp_path / "tree.dot"
    assert export_graphviz(iris_tree, out_file=path) is None
    assert path.read_text() == dot
    handle = io.StringIO()
    export_graphviz(iris_tree, out_file=handle)
    assert handle.getvalue() == dot

    assert "(...)" in export_graphviz(iris_tree, max_depth=0)
    assert "(...)" not in dot
    assert "petal" in export_graphviz(iris_tree, feature_names=IRIS_NAMES)
    assert "class = setosa" in export_graphviz(iris_tree,
                                               class_names=["setosa", "versicolor", "virginica"])
    assert "class" not in export_graphviz(iris_tree, class_names=False)
    assert '0 [label="150\\n' in export_graphviz(iris_tree, label="none")
    root_only = export_graphviz(iris_tree, label="root")
    assert root_only.count("samples = ") == 1
    assert "rank=same" in export_graphviz(iris_tree, leaves_parallel=True)
    assert "rank=same" not in dot
    assert "gini = 0.67" in export_graphviz(iris_tree, impurity=True)
    assert "node #0" in export_graphviz(iris_tree, node_ids=True)
    assert "samples = 100%" in export_graphviz(iris_tree, proportion=True)
    assert "rankdir=LR" in export_graphviz(iris_tree, rotate=True)
    assert "rankdir" not in dot
    assert 'style="rounded"' in dot and 'style=""' in export_graphviz(iris_tree, rounded=False)
    special = export_graphviz(iris_tree, special_characters=True)
    assert "&le;" in special and "<br/>" in special and "<=" not in special
    assert "0.333" in export_graphviz(iris_tree, proportion=True, precision=3)
    assert 'fontname="times"' in export_graphviz(iris_tree, fontname="times")
    assert "fillcolor" in export_graphviz(iris_tree, filled=True)
    with pytest.raises(ValueError, match="max_depth"):
        export_graphviz(iris_tree, max_depth=-1)
    with pytest.raises(ValueError, match="precision"):
        export_graphviz(iris_tree, precision=-1)


def bool_model():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"is_member": rng.random(200) < 0.5, "age": rng.integers(18, 80, 200)})
    y = (X.is_member & (X.age > 40)).astype(int)
    return OptimalTreeClassifier(max_depth=2).fit(X, y), X, y


def test_a_bool_column_reads_as_a_name_and_its_negation():
    model, X, y = bool_model()
    text = export_text(model)
    lines = [line.split("|--- ")[1] for line in text.splitlines()[1:]]
    assert "is_member" in lines and "not is_member" in lines
    assert "False" not in text and "True" not in text and "is_member <= 0.5" not in text
    # the branch named is_member holds the members: it predicts 1 for the older ones
    top = [line for line in text.splitlines() if line.startswith("|--- ")]
    member_first = top[0] == "|--- is_member"
    assert member_first or top[0] == "|--- not is_member"
    dot = export_graphviz(model)
    assert '[label="is_member"]' in dot and '[label="not is_member"]' in dot
    _, _, edges = plot_texts(model)
    assert {"is_member", "not is_member"} <= set(edges)


def test_bool_branch_names_route_like_the_tree():
    model, X, _ = bool_model()
    tree = model.tree_
    root = model.binary_features_[tree.feature[0]]
    assert root.column_name == "is_member"
    text = export_text(model, max_depth=1)
    first = text.splitlines()[0].removeprefix("|--- ")
    # the first branch is children_right, where the binary feature is 1
    member = X.iloc[[int(np.flatnonzero(X.is_member)[0])]]
    reached_right = model.binarizer_.transform(member)[0, tree.feature[0]] == 1
    assert (first == "is_member") == bool(reached_right)


def test_clusterer_leaves_show_cluster_and_centroid():
    X = np.array([[0, 0.0], [0, 0.2], [1, 5.0], [1, 5.2], [2, 9.0]])
    model = OptimalTreeClusterer(max_depth=2, n_clusters=3).fit(X)
    text = export_text(model)
    for k, centre in enumerate(model.cluster_centers_):
        assert f"cluster: {k} centroid: [{centre[0]:.2f}, {centre[1]:.2f}]" in text
    dot = export_graphviz(model)
    assert "cluster = 0" in dot and "centroid = [" in dot
    _, texts, _ = plot_texts(model)
    leaves = [t for t in texts if "cluster = " in t]
    assert len(leaves) == model.tree_.n_leaves == len(model.cluster_centers_)
