"""Text, DOT and matplotlib export of hand-made fitted trees."""

import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from odtree.preprocessing._features import BinaryFeature
from odtree.tree._arrays import Tree
from odtree.tree._export import export_graphviz, export_text, plot_tree
from sklearn.exceptions import NotFittedError

PETAL_LENGTH = BinaryFeature(2, "petal length", "threshold", 2.45)
PETAL_WIDTH = BinaryFeature(3, "petal width", "threshold", 1.75)


def iris_model():
    """Depth-2 tree: petal length <= 2.45 -> setosa, else petal width <= 1.75 -> versicolor."""
    tree = Tree(
        children_left=[1, 3, -1, -1, -1],
        children_right=[2, 4, -1, -1, -1],
        feature=[0, 1, -2, -2, -2],
        value=[[[50, 50, 50]], [[0, 50, 50]], [[50, 0, 0]], [[0, 1, 45]], [[0, 49, 5]]],
        n_node_samples=[150, 100, 50, 46, 54],
        weighted_n_node_samples=[150.0, 100.0, 50.0, 46.0, 54.0],
    )
    return SimpleNamespace(tree_=tree, classes_=np.array(["setosa", "versicolor", "virginica"]),
                           binary_features_=[PETAL_LENGTH, PETAL_WIDTH])


def leaf_model(classes=("a", "b"), value=((3.0, 1.0),)):
    tree = Tree([-1], [-1], [-2], [value], [4], [4.0])
    return SimpleNamespace(tree_=tree, classes_=np.array(classes), binary_features_=[])


def regressor_model():
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [[[2.5]], [[1.0]], [[3.14159]]],
                [10, 4, 6], [10.0, 4.0, 6.0])
    return SimpleNamespace(tree_=tree, binary_features_=[BinaryFeature(0, "x0", "binary")])


def random_model(seed, n_features=4, max_depth=4):
    """A random tree over binary features f0.. whose every leaf predicts its own class."""
    rng = np.random.default_rng(seed)
    left, right, feature = [], [], []

    def grow(depth):
        node = len(feature)
        left.append(-1)
        right.append(-1)
        feature.append(-2)
        if depth < max_depth and rng.random() < 0.7:
            feature[node] = int(rng.integers(n_features))
            left[node] = grow(depth + 1)
            right[node] = grow(depth + 1)
        return node

    grow(0)
    leaves = [node for node in range(len(feature)) if feature[node] == -2]
    value = np.zeros((len(feature), 1, len(leaves)))
    for k, leaf in enumerate(leaves):
        value[leaf, 0, k] = 1.0
    tree = Tree(left, right, feature, value, np.ones(len(feature)), np.ones(len(feature)))
    features = [BinaryFeature(j, f"f{j}", "binary") for j in range(n_features)]
    return SimpleNamespace(tree_=tree, classes_=np.array([f"leaf{n}" for n in leaves]),
                           binary_features_=features)


def test_export_text_prints_the_true_branch_first():
    assert export_text(iris_model()) == (
        "|--- petal length <= 2.45\n"
        "|   |--- class: setosa\n"
        "|--- petal length > 2.45\n"
        "|   |--- petal width <= 1.75\n"
        "|   |   |--- class: versicolor\n"
        "|   |--- petal width > 1.75\n"
        "|   |   |--- class: virginica\n"
    )


def test_export_text_shows_weights_with_decimals_only_when_needed():
    model = iris_model()
    model.tree_.value[2, 0] = [49.5, 0.25, 0]
    text = export_text(model, show_weights=True, decimals=1)
    assert "|   |--- weights: [49.5, 0.2, 0] class: setosa\n" in text
    assert "|   |   |--- weights: [0, 49, 5] class: versicolor\n" in text


@pytest.mark.parametrize(("max_depth", "expected"), [
    (0, "|--- truncated branch of depth 2\n"),
    (1, "|--- petal length <= 2.45\n"
        "|   |--- class: setosa\n"
        "|--- petal length > 2.45\n"
        "|   |--- truncated branch of depth 1\n"),
])
def test_export_text_truncates_below_max_depth(max_depth, expected):
    assert export_text(iris_model(), max_depth=max_depth) == expected


def test_export_text_max_depth_of_the_tree_shows_everything():
    model = iris_model()
    assert export_text(model, max_depth=model.tree_.max_depth) == export_text(model)


def test_export_text_rejects_negative_max_depth():
    with pytest.raises(ValueError, match="max_depth"):
        export_text(iris_model(), max_depth=-1)


def test_export_text_single_leaf():
    assert export_text(leaf_model()) == "|--- class: a\n"
    assert export_text(leaf_model(), max_depth=0) == "|--- class: a\n"
    assert export_text(leaf_model(), show_weights=True) == "|--- weights: [3, 1] class: a\n"


def test_export_text_keeps_label_types_readable():
    assert export_text(leaf_model(classes=[3, 7], value=((0.0, 2.0),))) == "|--- class: 7\n"


def test_export_names_the_class_predict_returns_on_ties():
    # the search chose the last class on a tie, unlike argmax
    model = SimpleNamespace(**vars(leaf_model(value=((2.0, 2.0),))), node_classes_=np.array([1]))
    assert export_text(model) == "|--- class: b\n"
    assert "class = b" in export_graphviz(model)
    assert export_text(leaf_model(value=((2.0, 2.0),))) == "|--- class: a\n"


def test_export_text_regressor_prints_values():
    assert export_text(regressor_model(), decimals=2) == (
        "|--- x0 = 1\n"
        "|   |--- value: 3.14\n"
        "|--- x0 = 0\n"
        "|   |--- value: 1.00\n"
    )


def _leaf_conditions(text):
    """For each leaf line of export_text over ``fj = 0/1`` tests: the conditions and the class."""
    leaves, path = [], []
    for line in text.splitlines():
        depth = line.count("|   ")
        content = line.split("|--- ", 1)[1]
        del path[depth:]
        if content.startswith("class: "):
            leaves.append((list(path), content.removeprefix("class: ")))
        else:
            name, bit = content.split(" = ")
            path.append((int(name[1:]), int(bit)))
    return leaves


@pytest.mark.parametrize("seed", range(20))
def test_export_text_paths_route_rows_like_the_tree(seed):
    model = random_model(seed)
    leaves = _leaf_conditions(export_text(model))
    assert len(leaves) == model.tree_.n_leaves
    rows = np.random.default_rng(seed).integers(0, 2, size=(64, 4))
    reached = model.tree_.apply(rows)
    for row, leaf in zip(rows, reached, strict=True):
        matching = [label for conditions, label in leaves
                    if all(row[j] == bit for j, bit in conditions)]
        assert matching == [model.classes_[np.argmax(model.tree_.value[leaf, 0])]]


def test_export_functions_need_a_fitted_model():
    for export in (export_text, export_graphviz, plot_tree):
        with pytest.raises(NotFittedError):
            export(SimpleNamespace())


DOT_STRING = r'"((?:[^"\\]|\\.)*)"'


def _dot_nodes_and_edges(dot):
    nodes = re.findall(rf"^(\d+) \[label={DOT_STRING}(.*)\] ;$", dot, flags=re.M)
    edges = re.findall(rf"^(\d+) -> (\d+) \[label={DOT_STRING}\] ;$", dot, flags=re.M)
    return ({int(n): (label, rest) for n, label, rest in nodes},
            [(int(a), int(b), label) for a, b, label in edges])


def _unescape(label):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), label)


def test_export_graphviz_has_one_node_per_tree_node_and_labelled_edges():
    model = iris_model()
    dot = export_graphviz(model)
    assert dot.startswith("digraph Tree {\n") and dot.endswith("}\n")
    nodes, edges = _dot_nodes_and_edges(dot)
    tree = model.tree_
    assert sorted(nodes) == list(range(tree.node_count))
    assert len(dot.strip().splitlines()) == 4 + tree.node_count + len(edges) + 1
    expected = []
    for node in range(tree.node_count):
        if not tree.is_leaf(node):
            feature = model.binary_features_[tree.feature[node]]
            expected += [(node, tree.children_right[node], feature.name),
                         (node, tree.children_left[node], feature.negation)]
    assert sorted(edges) == sorted(expected)
    for parent in (0, 1):  # the true branch is written first, so it is drawn on the left
        labels = [label for a, _, label in edges if a == parent]
        assert labels[0].count("<=") == 1 and labels[1].count(">") == 1
    assert _unescape(nodes[2][0]) == "samples = 50\nvalue = [50, 0, 0]\nclass = setosa"


def test_export_graphviz_escapes_names():
    weird = BinaryFeature(0, 'say "hi"\\now', "binary")
    model = iris_model()
    model.binary_features_ = [weird, PETAL_WIDTH]
    model.classes_ = np.array(['a "quoted" class', "b", "c"])
    nodes, edges = _dot_nodes_and_edges(export_graphviz(model))
    assert len(nodes) == 5 and len(edges) == 4
    assert {_unescape(label) for a, _, label in edges if a == 0} == {weird.name, weird.negation}
    assert _unescape(nodes[2][0]).endswith('class = a "quoted" class')


def test_export_graphviz_styles_and_fill_colours():
    dot = export_graphviz(iris_model(), filled=True, rounded=False)
    assert 'style="filled"' in dot and "rounded" not in dot
    nodes, _ = _dot_nodes_and_edges(dot)
    colours = {n: re.fullmatch(r', fillcolor="(#[0-9a-f]{6})"', rest).group(1)
               for n, (_, rest) in nodes.items()}
    assert colours[0] == "#ffffff"  # a three-way tie has no majority
    assert colours[2] != "#ffffff"  # a pure leaf gets its class's full colour
    assert colours[3] != colours[2]  # another class, another hue
    plain = export_graphviz(iris_model(), rounded=False)
    assert "fillcolor" not in plain and 'style=""' in plain


def test_export_graphviz_class_names():
    dot = export_graphviz(iris_model(), class_names=["S", "Ve", "Vi"])
    assert "class = Ve" in dot and "setosa" not in dot
    with pytest.raises(ValueError, match="class_names has 2 names"):
        export_graphviz(iris_model(), class_names=["S", "Ve"])


def test_export_graphviz_single_leaf_and_regressor():
    nodes, edges = _dot_nodes_and_edges(export_graphviz(leaf_model(), filled=True))
    assert list(nodes) == [0] and edges == []
    nodes, edges = _dot_nodes_and_edges(export_graphviz(regressor_model(), filled=True))
    assert _unescape(nodes[2][0]) == "samples = 6\nvalue = 3.14"
    assert [label for *_, label in edges] == ["x0 = 1", "x0 = 0"]


@pytest.fixture
def axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(8, 5))
    yield ax
    plt.close(figure)


def test_plot_tree_draws_one_annotation_per_node(axes):
    model = iris_model()
    annotations = plot_tree(model, ax=axes, filled=True)
    assert len(annotations) == model.tree_.node_count
    assert annotations[2].get_text().endswith("class = setosa")
    x = [a.xyann[0] for a in annotations]
    assert x[2] < x[1] and x[4] < x[3]  # the true branch (children_right) on the left
    y = [a.xyann[1] for a in annotations]
    assert y[0] > y[1] == y[2] > y[3] == y[4]
    edge_labels = {t.get_text().replace("\n", " ") for t in axes.texts
                   if t not in annotations}  # a long test is drawn on two lines
    assert {"petal length <= 2.45", "petal width > 1.75"} <= edge_labels


def test_plot_tree_fontsize_and_small_trees(axes):
    annotations = plot_tree(leaf_model(), ax=axes, fontsize=7)
    assert len(annotations) == 1 and annotations[0].get_fontsize() == 7
    annotations = plot_tree(regressor_model(), ax=axes, rounded=False)
    assert 4 <= annotations[0].get_fontsize() <= 12


def test_plot_tree_uses_current_axes(axes):
    import matplotlib.pyplot as plt

    plt.sca(axes)
    assert plot_tree(iris_model())[0].axes is axes


def test_plot_tree_without_matplotlib_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match="pip install matplotlib"):
        plot_tree(iris_model())
