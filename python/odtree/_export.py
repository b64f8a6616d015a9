"""Show a fitted tree: as indented text, as Graphviz DOT, or drawn with matplotlib.

Every function reads the fitted attributes only (``tree_``, ``binary_features_`` and, for
classifiers, ``classes_``), so it works for any odtree estimator.

Branch order
------------
At every split the branch where the binary feature's test holds (feature = 1, ``name``, the
``children_right`` node) comes first, then the branch where it fails (feature = 0, ``negation``,
the ``children_left`` node). Text lists the first branch on top; DOT and :func:`plot_tree` draw it
on the left. For threshold features the first branch is ``x <= t``, so the output reads like
scikit-learn's.
"""

from __future__ import annotations

import colorsys

import numpy as np
from sklearn.exceptions import NotFittedError

__all__ = ["export_graphviz", "export_text", "plot_tree"]


def export_text(model, *, decimals=2, show_weights=False, max_depth=None) -> str:
    """Describe a fitted tree as indented text, in the terms of the original features.

    Parameters
    ----------
    model : fitted odtree estimator
    decimals : int, default=2
        Decimals of the class weights and regression values. Thresholds appear as in
        ``BinaryFeature.name`` (6 significant digits).
    show_weights : bool, default=False
        Print the weighted class sums of each leaf (classifiers only).
    max_depth : int or None, default=None
        Show the splits at depth ``< max_depth`` only (the root has depth 0); a deeper subtree
        becomes ``truncated branch of depth k``, ``k`` being its own depth. ``None`` shows all.

    Returns
    -------
    str
        One line per branch and per leaf; the true branch of each test comes first.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from odtree._features import BinaryFeature
    >>> from odtree._tree import Tree
    >>> tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2],
    ...             [[[2, 3]], [[2, 0]], [[0, 3]]], [5, 2, 3], [5.0, 2.0, 3.0])
    >>> model = SimpleNamespace(tree_=tree, classes_=np.array(["no", "yes"]),
    ...     binary_features_=[BinaryFeature(0, "age", "threshold", 37.5)])
    >>> print(export_text(model, show_weights=True), end="")
    |--- age <= 37.5
    |   |--- weights: [0, 3] class: yes
    |--- age > 37.5
    |   |--- weights: [2, 0] class: no
    """
    tree, features = _fitted_parts(model)
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be None or >= 0, got {max_depth}")
    height = _subtree_heights(tree)
    predicted = _node_classes(model)
    lines = []

    def visit(node, depth):
        indent = "|   " * depth + "|--- "
        if tree.is_leaf(node):
            lines.append(indent + _leaf_text(model, node, predicted, decimals, show_weights))
        elif max_depth is not None and depth >= max_depth:
            lines.append(indent + f"truncated branch of depth {height[node]}")
        else:
            for child, test in _branches(tree, features, node):
                lines.append(indent + test)
                visit(child, depth + 1)

    visit(0, 0)
    return "\n".join(lines) + "\n"


def export_graphviz(model, *, rounded=True, filled=False, class_names=None) -> str:
    """Describe a fitted tree in the Graphviz DOT language.

    Each tree node becomes one DOT node named by its id in ``tree_``; each edge is labelled with
    the test that holds on it. The true branch of each test is drawn on the left.

    Parameters
    ----------
    model : fitted odtree estimator
    rounded : bool, default=True
        Draw boxes with rounded corners.
    filled : bool, default=False
        Colour the nodes by majority class (classifiers) or by value (regressors); the colour
        fades as the node gets less pure.
    class_names : sequence of str or None, default=None
        Names shown for the classes, in the order of ``classes_``; ``None`` uses ``classes_``.

    Returns
    -------
    str
        The DOT text; render it with ``dot -Tpng`` or ``graphviz.Source``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from odtree._features import BinaryFeature
    >>> from odtree._tree import Tree
    >>> tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2],
    ...             [[[2, 3]], [[2, 0]], [[0, 3]]], [5, 2, 3], [5.0, 2.0, 3.0])
    >>> model = SimpleNamespace(tree_=tree, classes_=np.array(["no", "yes"]),
    ...     binary_features_=[BinaryFeature(0, "age", "threshold", 37.5)])
    >>> print(export_graphviz(model), end="")
    digraph Tree {
    graph [ordering="out"] ;
    node [shape=box, style="rounded", fontname="helvetica"] ;
    edge [fontname="helvetica"] ;
    0 [label="samples = 5\\nvalue = [2, 3]\\nclass = yes"] ;
    2 [label="samples = 3\\nvalue = [0, 3]\\nclass = yes"] ;
    0 -> 2 [label="age <= 37.5"] ;
    1 [label="samples = 2\\nvalue = [2, 0]\\nclass = no"] ;
    0 -> 1 [label="age > 37.5"] ;
    }
    """
    tree, features = _fitted_parts(model)
    names = _class_names(model, class_names)
    predicted = _node_classes(model)
    colors = _node_colors(model, predicted) if filled else None
    style = ", ".join(s for s, on in (("filled", filled), ("rounded", rounded)) if on)
    out = [
        "digraph Tree {",
        'graph [ordering="out"] ;',
        f'node [shape=box, style="{style}", fontname="helvetica"] ;',
        'edge [fontname="helvetica"] ;',
    ]

    def visit(node):
        label = _dot_quote("\n".join(_node_lines(model, node, predicted, names)))
        fill = f', fillcolor="{colors[node]}"' if filled else ""
        out.append(f"{node} [label={label}{fill}] ;")
        if not tree.is_leaf(node):
            for child, test in _branches(tree, features, node):
                visit(child)
                out.append(f"{node} -> {child} [label={_dot_quote(test)}] ;")

    visit(0)
    out.append("}")
    return "\n".join(out) + "\n"


def plot_tree(model, *, ax=None, fontsize=None, filled=False, rounded=True, class_names=None):
    """Draw a fitted tree with matplotlib.

    Nodes are boxes holding the sample count, value and class; edges carry the test that holds
    on them, the true branch drawn on the left.

    Parameters
    ----------
    model : fitted odtree estimator
    ax : matplotlib Axes or None, default=None
        Where to draw; ``None`` uses the current axes.
    fontsize : float or None, default=None
        Text size; ``None`` picks one that fits the axes.
    filled, rounded, class_names
        As in :func:`export_graphviz`.

    Returns
    -------
    list of matplotlib.text.Annotation
        One annotation per tree node, indexed by node id.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from odtree._features import BinaryFeature
    >>> from odtree._tree import Tree
    >>> tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2],
    ...             [[[2, 3]], [[2, 0]], [[0, 3]]], [5, 2, 3], [5.0, 2.0, 3.0])
    >>> model = SimpleNamespace(tree_=tree, classes_=np.array(["no", "yes"]),
    ...     binary_features_=[BinaryFeature(0, "age", "threshold", 37.5)])
    >>> len(plot_tree(model, filled=True))
    3
    """
    tree, features = _fitted_parts(model)
    if ax is None:
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError(
                "plot_tree needs matplotlib: pip install matplotlib (or odtree[plot])") from exc
        ax = plt.gca()
    names = _class_names(model, class_names)
    predicted = _node_classes(model)
    colors = _node_colors(model, predicted) if filled else ["white"] * tree.node_count
    labels = ["\n".join(_node_lines(model, node, predicted, names))
              for node in range(tree.node_count)]
    x, y = _layout(tree)
    if fontsize is None:
        fontsize = _fitting_fontsize(ax, labels, tree)
    ax.set_axis_off()
    box = "round" if rounded else "square"
    depth = tree.node_depths()
    top = tree.max_depth + 3  # parents above their children's arrows, edge labels above all

    def draw(text, xy, xytext, zorder, size=fontsize, **style):
        return ax.annotate(text, xy=xy, xytext=xytext, xycoords="axes fraction",
                           textcoords="axes fraction", va="center", fontsize=size,
                           zorder=zorder, **style)

    def node_box(node):
        return {"boxstyle": box, "fc": colors[node], "ec": "black"}

    annotations = [None] * tree.node_count
    annotations[0] = draw(labels[0], (x[0], y[0]), (x[0], y[0]), top - 1, ha="center",
                          bbox=node_box(0))
    for node in range(tree.node_count):
        if tree.is_leaf(node):
            continue
        # each edge label extends away from its sibling edge: the true one leftwards
        for (child, test), align in zip(_branches(tree, features, node), ("right", "left"),
                                        strict=True):
            annotations[child] = draw(
                labels[child], (x[node], y[node]), (x[child], y[child]), top - 1 - depth[child],
                ha="center", bbox=node_box(child), arrowprops={"arrowstyle": "<-"})
            middle = ((x[node] + x[child]) / 2, (y[node] + y[child]) / 2)
            draw(test, middle, middle, top, size=fontsize * 0.9, ha=align,
                 bbox={"boxstyle": "round", "fc": "white", "ec": "none", "alpha": 0.8})
    return annotations


def _fitted_parts(model):
    """The tree and its binary features; NotFittedError when the model was not fitted."""
    if not hasattr(model, "tree_"):
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet; call 'fit' first.")
    return model.tree_, model.binary_features_


def _branches(tree, features, node):
    """The children of a split, true branch first, each with the test that holds on it."""
    feature = features[tree.feature[node]]
    return ((tree.children_right[node], feature.name),
            (tree.children_left[node], feature.negation))


def _subtree_heights(tree) -> np.ndarray:
    """Depth of the subtree rooted at each node (0 for a leaf)."""
    height = np.zeros(tree.node_count, dtype=np.int64)
    for node in reversed(range(tree.node_count)):  # children come after parents
        if not tree.is_leaf(node):
            height[node] = 1 + max(height[tree.children_left[node]],
                                   height[tree.children_right[node]])
    return height


def _node_classes(model):
    """Index in ``classes_`` of the class each node predicts, or None for a regressor.

    Reads the classes the search chose (``node_classes_``) when the model has them, so the
    text always names the class ``predict`` returns; otherwise the first of the heaviest.
    """
    if not hasattr(model, "classes_"):
        return None
    if getattr(model, "node_classes_", None) is not None:
        return np.asarray(model.node_classes_)
    return np.argmax(model.tree_.value[:, 0, :], axis=1)


def _leaf_text(model, node, predicted, decimals, show_weights) -> str:
    values = model.tree_.value[node, 0]
    if predicted is None:
        return f"value: {_format_values(values, decimals)}"
    text = f"class: {model.classes_[predicted[node]]}"
    if show_weights:
        text = f"weights: [{', '.join(_format_weight(v, decimals) for v in values)}] {text}"
    return text


def _node_lines(model, node, predicted, class_names) -> list[str]:
    """Lines of a node's box in DOT and plots: sample count, value and, for classifiers, class."""
    tree = model.tree_
    values = tree.value[node, 0]
    lines = [f"samples = {tree.n_node_samples[node]}"]
    if class_names is None:
        lines.append(f"value = {_format_values(values, 2)}")
    else:
        lines.append(f"value = [{', '.join(_format_weight(v, 2) for v in values)}]")
        lines.append(f"class = {class_names[predicted[node]]}")
    return lines


def _class_names(model, class_names):
    """Class names to show, or None for a regressor."""
    if not hasattr(model, "classes_"):
        return None
    if class_names is None:
        return [str(c) for c in model.classes_]
    if len(class_names) != len(model.classes_):
        raise ValueError(f"class_names has {len(class_names)} names but the model has "
                         f"{len(model.classes_)} classes")
    return [str(c) for c in class_names]


def _format_weight(value, decimals) -> str:
    """A class weight: an integer when it is one, else with ``decimals`` decimals."""
    return str(int(value)) if float(value).is_integer() else f"{value:.{decimals}f}"


def _format_values(values, decimals) -> str:
    """A regression value, or a bracketed list of them."""
    text = [f"{v:.{decimals}f}" for v in values]
    return text[0] if len(text) == 1 else f"[{', '.join(text)}]"


def _node_colors(model, predicted) -> list[str]:
    """A ``#rrggbb`` fill per node: the predicted class's hue, faded towards white as the node
    gets less pure (classifiers); or one hue, faded as the value gets lower (regressors)."""
    value = model.tree_.value[:, 0, :]
    if predicted is not None:
        n_classes = value.shape[1]
        hues = [_hue(k / n_classes) for k in range(n_classes)]
        totals = value.sum(axis=1, keepdims=True)
        shares = np.divide(value, totals, out=np.zeros_like(value), where=totals > 0)
        top_two = -np.sort(-shares, axis=1)[:, :2]
        if n_classes == 1:
            strength = np.ones(len(value))
        else:
            strength = np.divide(top_two[:, 0] - top_two[:, 1], 1 - top_two[:, 1],
                                 out=np.zeros(len(value)), where=top_two[:, 1] < 1)
        rgb = [hues[k] for k in predicted]
    else:
        mean = value.mean(axis=1)
        span = mean.max() - mean.min()
        strength = (mean - mean.min()) / span if span > 0 else np.ones(len(mean))
        rgb = [_hue(0.0)] * len(mean)
    return [_fade(color, alpha) for color, alpha in zip(rgb, strength, strict=True)]


def _hue(fraction) -> tuple[float, float, float]:
    return colorsys.hsv_to_rgb((fraction + 0.07) % 1.0, 0.75, 0.9)


def _fade(rgb, alpha) -> str:
    """Mix a colour with white (alpha 0 gives white) as ``#rrggbb``."""
    return "#" + "".join(f"{round(255 * (alpha * c + 1 - alpha)):02x}" for c in rgb)


def _dot_quote(text: str) -> str:
    """A DOT double-quoted string; newlines become centred line breaks."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _layout(tree):
    """Axes-fraction positions: leaves spread evenly in display order, parents centred above."""
    n_leaves, levels = tree.n_leaves, tree.max_depth + 1
    x = np.zeros(tree.node_count)
    y = 1 - (tree.node_depths() + 0.5) / levels
    next_slot = 0

    def place(node):
        nonlocal next_slot
        if tree.is_leaf(node):
            x[node] = (next_slot + 0.5) / n_leaves
            next_slot += 1
            return
        first, second = tree.children_right[node], tree.children_left[node]
        place(first)
        place(second)
        x[node] = (x[first] + x[second]) / 2

    place(0)
    return x, y


def _fitting_fontsize(ax, labels, tree) -> float:
    """The largest text size (4 to 12 points) at which the widest and tallest labels fit."""
    bbox = ax.get_window_extent()
    points_per_pixel = 72 / ax.figure.dpi
    width = bbox.width * points_per_pixel / tree.n_leaves
    height = bbox.height * points_per_pixel / (tree.max_depth + 1)
    widest = max(len(line) for label in labels for line in label.split("\n"))
    tallest = max(label.count("\n") + 1 for label in labels)
    return float(np.clip(min(width / (0.7 * widest), height / (2.2 * tallest)), 4, 12))


def plot_anytime(model, *, ax=None):
    """Draw how a fit's search went: the objective of the best tree so far, and the proven
    lower bound, against the seconds since the start (``model.anytime_log_``).

    Parameters
    ----------
    model : fitted odtree estimator
    ax : matplotlib Axes or None, default=None
        Where to draw; ``None`` uses the current axes.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from odtree import OptimalTreeClassifier, plot_anytime
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [0, 0]])
    >>> model = OptimalTreeClassifier(max_depth=2).fit(X, [0, 1, 1, 0])
    >>> plot_anytime(model).get_xlabel()
    'seconds'
    """
    import matplotlib.pyplot as plt

    log = np.asarray(model.anytime_log_)
    ax = plt.gca() if ax is None else ax
    ax.step(log[:, 0], log[:, 1], where="post", marker="o", label="objective")
    ax.step(log[:, 0], log[:, 2], where="post", marker=".", label="lower bound")
    ax.set_xlabel("seconds")
    ax.set_ylabel("objective")
    ax.legend()
    return ax
