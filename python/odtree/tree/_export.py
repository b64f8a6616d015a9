"""Show a fitted tree: as indented text, as Graphviz DOT, or drawn with matplotlib.

Every function reads the fitted attributes only (``tree_``, ``binary_features_`` and, for
classifiers, ``classes_``), so it works for any odtree estimator.

Branch order
------------
At every split the branch where the binary feature's test holds (feature = 1, ``name``, the
``children_right`` node) comes first, then the branch where it fails (feature = 0, ``negation``,
the ``children_left`` node). Text lists the first branch on top; DOT and :func:`plot_tree` draw it
on the left. For threshold features the first branch is ``x <= t``, so the output reads like
scikit-learn's. A test on a bool column reads ``name`` / ``not name``. With
``missing="split"``, the branch that takes the rows missing the column says so:
``x <= t or missing`` / ``x > t``, or ``x <= t`` / ``x > t or missing``; and a test of
missingness reads ``x is missing`` / ``x is not missing``.

The keyword arguments are scikit-learn's (``sklearn.tree.export_text``, ``export_graphviz``
and ``plot_tree``). :func:`plot_tree` measures its labels and picks the largest text size at
which none overlap.
"""

from __future__ import annotations

import colorsys
from dataclasses import replace

import numpy as np
from sklearn.exceptions import NotFittedError

__all__ = ["export_graphviz", "export_text", "plot_tree"]


def export_text(model, *, feature_names=None, class_names=None, max_depth=None, spacing=3,
                decimals=2, show_weights=False) -> str:
    """Describe a fitted tree as indented text, in the terms of the original features.

    Parameters
    ----------
    model : fitted odtree estimator
    feature_names : sequence of str or None, default=None
        Names of the original columns (indexed like ``X``'s columns); ``None`` uses the names
        the model was fitted with.
    class_names : sequence of str or None, default=None
        Names of the classes, in the order of ``classes_``; ``None`` uses ``classes_``.
    max_depth : int or None, default=None
        Show the splits at depth ``< max_depth`` only (the root has depth 0); a deeper subtree
        becomes ``truncated branch of depth k``, ``k`` being its own depth. ``None`` shows all.
    spacing : int, default=3
        Width of each level of indentation (``|`` plus ``spacing`` characters).
    decimals : int, default=2
        Decimals of the class weights, regression values and centroids. Thresholds appear as in
        ``BinaryFeature.name`` (6 significant digits).
    show_weights : bool, default=False
        Print the weighted class sums of each leaf (classifiers only).

    Returns
    -------
    str
        For a fitted optimal tree, a first line saying what its optimality covers (every
        threshold of the input columns, or the binarized features; see ``optimal_over_``),
        then one line per branch and per leaf; the true branch of each test comes first. A
        test on a bool column reads ``name`` / ``not name``; a clusterer's leaf names its
        cluster and centroid.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from odtree import BinaryFeature
    >>> from odtree import Tree
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
    _check_max_depth(max_depth)
    if spacing <= 0:
        raise ValueError(f"spacing must be > 0, got {spacing}")
    if decimals < 0:
        raise ValueError(f"decimals must be >= 0, got {decimals}")
    column_names = _column_names(features, feature_names)
    names = _class_names(model, class_names)
    height = _subtree_heights(tree)
    predicted = _node_classes(model)
    clusters = _clusters(model)
    lines = []

    def visit(node, depth):
        indent = ("|" + " " * spacing) * depth + "|" + "-" * spacing + " "
        if tree.is_leaf(node):
            lines.append(indent + _leaf_text(model, node, predicted, names, clusters, decimals,
                                             show_weights))
        elif max_depth is not None and depth >= max_depth:
            lines.append(indent + f"truncated branch of depth {height[node]}")
        else:
            for child, test in _branches(tree, features, node, column_names):
                lines.append(indent + test)
                visit(child, depth + 1)

    visit(0, 0)
    return _scope_header(model) + "\n".join(lines) + "\n"


def _scope_header(model) -> str:
    """The line saying what the fitted tree's optimality covers, for models that say it."""
    scope = getattr(model, "optimal_over_", None)
    if scope is None:
        return ""
    status = getattr(model, "status_", None)
    if status == "optimal":
        return f"# optimal over {scope}\n"
    return f"# not proven optimal ({status}); searched over {scope}\n"


def export_graphviz(model, out_file=None, *, max_depth=None, feature_names=None,
                    class_names=None, label="all", filled=False, leaves_parallel=False,
                    impurity=False, node_ids=False, proportion=False, rotate=False, rounded=True,
                    special_characters=False, precision=2, fontname="helvetica"):
    """Describe a fitted tree in the Graphviz DOT language.

    Each tree node becomes one DOT node named by its id in ``tree_``; each edge is labelled with
    the test that holds on it. The true branch of each test is drawn on the left. The keyword
    arguments are scikit-learn's (``sklearn.tree.export_graphviz``); only some defaults differ.

    Parameters
    ----------
    model : fitted odtree estimator
    out_file : str, path or file object, or None, default=None
        Where to write the DOT text; ``None`` returns it as a string.
    max_depth : int or None, default=None
        Draw the nodes down to this depth; their children become ``(...)`` nodes.
    feature_names : sequence of str or None, default=None
        Names of the original columns; ``None`` uses the names the model was fitted with.
    class_names : sequence of str, bool or None, default=None
        Names shown for the classes, in the order of ``classes_``; ``None`` or ``True`` uses
        ``classes_``, ``False`` leaves the class out.
    label : {"all", "root", "none"}, default="all"
        Where to write what each number is (``samples = ``): at every node, at the root only,
        or nowhere.
    filled : bool, default=False
        Colour the nodes by majority class (classifiers) or by value (regressors); the colour
        fades as the node gets less pure.
    leaves_parallel : bool, default=False
        Draw all the leaves at the bottom.
    impurity : bool, default=False
        Show each node's Gini impurity (classifiers only).
    node_ids : bool, default=False
        Show each node's id (``node #k``).
    proportion : bool, default=False
        Show the samples as a share of the root's and the class weights as shares.
    rotate : bool, default=False
        Draw the tree from left to right instead of top to bottom.
    rounded : bool, default=True
        Draw boxes with rounded corners.
    special_characters : bool, default=False
        Write HTML-like labels with ``≤`` and ``≥``-style symbols.
    precision : int, default=2
        Decimals of values, impurities and proportions.
    fontname : str, default="helvetica"
        The font of the text.

    Returns
    -------
    str or None
        The DOT text when ``out_file`` is None; render it with ``dot -Tpng`` or
        ``graphviz.Source``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from odtree import BinaryFeature
    >>> from odtree import Tree
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
    _check_max_depth(max_depth)
    labeller = _Labeller(model, feature_names=feature_names, class_names=class_names,
                         label=label, impurity=impurity, node_ids=node_ids,
                         proportion=proportion, precision=precision)
    colors = _node_colors(model, labeller.predicted) if filled else None
    style = ", ".join(s for s, on in (("filled", filled), ("rounded", rounded)) if on)
    quote = _dot_html if special_characters else _dot_quote
    out = ["digraph Tree {", 'graph [ordering="out"] ;']
    if rotate:
        out.append("rankdir=LR ;")
    out += [f'node [shape=box, style="{style}", fontname="{fontname}"] ;',
            f'edge [fontname="{fontname}"] ;']
    leaves = []

    def visit(node, depth):
        fill = f', fillcolor="{colors[node]}"' if filled else ""
        if max_depth is not None and depth > max_depth:
            grey = ', fillcolor="#c0c0c0"' if filled else ""
            out.append(f'{node} [label="(...)"{grey}] ;')
            return
        out.append(f"{node} [label={quote(chr(10).join(labeller.lines(node)))}{fill}] ;")
        if tree.is_leaf(node):
            leaves.append(node)
            return
        for child, test in _branches(tree, features, node, labeller.column_names):
            visit(child, depth + 1)
            out.append(f"{node} -> {child} [label={quote(test)}] ;")

    visit(0, 0)
    if leaves_parallel and leaves:
        out.append("{rank=same ; " + " ; ".join(map(str, leaves)) + "} ;")
    out.append("}")
    dot = "\n".join(out) + "\n"
    if out_file is None:
        return dot
    if hasattr(out_file, "write"):
        out_file.write(dot)
    else:
        with open(out_file, "w", encoding="utf-8") as handle:
            handle.write(dot)
    return None


def plot_tree(model, *, max_depth=None, feature_names=None, class_names=None, label="all",
              filled=False, impurity=False, node_ids=False, proportion=False, rounded=True,
              precision=2, ax=None, fontsize=None):
    """Draw a fitted tree with matplotlib, every label readable and none overlapping.

    Nodes are boxes holding the sample count, value and class; edges carry the test that holds
    on them, the true branch drawn on the left. The leaves are spread evenly; the text size is
    the largest at which no two labels overlap and all stay inside the axes. When ``ax`` is
    None and the current figure holds nothing else, the figure is sized to the tree (it grows,
    never shrinks): wide enough for the labels of every level side by side and tall enough
    for the levels one above the other at a readable text size (9 points: 12 pixels at 100
    dpi; up to 100 inches a side), so that a deep tree stays legible when saved. The keyword
    arguments are scikit-learn's (``sklearn.tree.plot_tree``); only some defaults differ.

    Parameters
    ----------
    model : fitted odtree estimator
    max_depth, feature_names, class_names, label, filled, impurity, node_ids, proportion, \
rounded, precision
        As in :func:`export_graphviz`.
    ax : matplotlib Axes or None, default=None
        Where to draw; ``None`` uses the current axes (and may enlarge its figure).
    fontsize : float or None, default=None
        Text size; ``None`` picks the largest that fits (at most 12 points).

    Returns
    -------
    list of matplotlib.text.Annotation
        One annotation per node drawn, in node-id order (indexed by node id when the whole
        tree is drawn).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> from odtree import BinaryFeature
    >>> from odtree import Tree
    >>> tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2],
    ...             [[[2, 3]], [[2, 0]], [[0, 3]]], [5, 2, 3], [5.0, 2.0, 3.0])
    >>> model = SimpleNamespace(tree_=tree, classes_=np.array(["no", "yes"]),
    ...     binary_features_=[BinaryFeature(0, "age", "threshold", 37.5)])
    >>> len(plot_tree(model, filled=True))
    3
    """
    tree, features = _fitted_parts(model)
    _check_max_depth(max_depth)
    caller_gave_ax = ax is not None
    if ax is None:
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError(
                "plot_tree needs matplotlib: pip install matplotlib (or odtree[plot])") from exc
        ax = plt.gca()
    labeller = _Labeller(model, feature_names=feature_names, class_names=class_names,
                         label=label, impurity=impurity, node_ids=node_ids,
                         proportion=proportion, precision=precision)
    colors = _node_colors(model, labeller.predicted) if filled else ["white"] * tree.node_count
    children, depth = _shown_children(tree, features, labeller.column_names, max_depth)
    x, y = _layout(children, depth)
    shown = sorted(children)
    ax.set_axis_off()
    box = "round" if rounded else "square"

    annotations, edge_texts = {}, []
    for node in shown:
        truncated = max_depth is not None and depth[node] > max_depth
        text = "(...)" if truncated else "\n".join(labeller.lines(node))
        fill = "#c0c0c0" if truncated and filled else colors[node]
        annotations[node] = ax.annotate(
            text, xy=(x[node], y[node]), xycoords="axes fraction", ha="center", va="center",
            zorder=3, bbox={"boxstyle": box, "fc": fill, "ec": "black"})
    for node in shown:
        # each edge label extends away from its sibling edge, the true one leftwards; the
        # true one sits nearer the parent, so that it does not meet its cousin's false label
        for (child, test), align, along in zip(children[node], ("right", "left"),
                                               (_TRUE_ALONG, 1 - _TRUE_ALONG), strict=False):
            ax.plot([x[node], x[child]], [y[node], y[child]], color="black", linewidth=0.8,
                    transform=ax.transAxes, zorder=1)
            at = (x[node] + along * (x[child] - x[node]), y[node] + along * (y[child] - y[node]))
            edge_texts.append(ax.annotate(
                _wrap_test(test), xy=at, xycoords="axes fraction", ha=align, va="center",
                zorder=4, bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                                "alpha": 0.8}))
    texts = list(annotations.values()) + edge_texts
    sized = not caller_gave_ax and len(ax.figure.axes) == 1
    if sized:  # a figure we were not given: make room for the tree
        _size_to_tree(ax, annotations, edge_texts, x, y, fontsize or _COMFORTABLE)
    if fontsize is not None:
        _set_sizes(annotations.values(), edge_texts, fontsize)
    else:
        size = _fit_text(ax, annotations.values(), edge_texts, texts)
        figure = ax.figure
        while sized and size < _COMFORTABLE and max(figure.get_size_inches()) < _LARGEST:
            # the edge labels met: grow a little more until the text is comfortable
            width, height = figure.get_size_inches()
            grow = max(_COMFORTABLE / size, 1.1)
            figure.set_size_inches(min(width * grow, _LARGEST), min(height * grow, _LARGEST),
                                   forward=True)
            size = _fit_text(ax, annotations.values(), edge_texts, texts)
    return [annotations[node] for node in shown]


#: Where the true branch's label sits along its edge (0: at the parent, 1: at the child).
_TRUE_ALONG = 0.4

#: Text size (points) of the node labels that plot_tree sizes a figure it was not given for.
_COMFORTABLE = 9.0
#: The largest side (inches) plot_tree gives a figure: 10,000 pixels at 100 dpi (a wider tree
#: gets smaller text).
_LARGEST = 100.0
#: Space (in text heights) between two labels side by side, and between two levels.
_GAP = 1.0


def _size_to_tree(ax, nodes, edges, x, y, size) -> None:
    """Enlarge (never shrink) the figure of ``ax`` so that, with the node labels at ``size``
    points, the labels of each level fit side by side and the levels, with the edge labels
    between them, fit one above the other. ``x`` and ``y`` are the nodes' axes fractions."""
    figure = ax.figure
    renderer = figure.canvas.get_renderer()
    _set_sizes(nodes.values(), edges, size)
    line = size * figure.dpi / 72  # one text height, in pixels
    pad = 2 * 0.35 * line  # a box's padding on both sides
    extent = {node: text.get_window_extent(renderer) for node, text in nodes.items()}
    levels = {}
    for node in nodes:
        levels.setdefault(y[node], []).append(node)
    width = max(box.width for box in extent.values()) + pad
    for row in levels.values():
        row.sort(key=x.get)
        for left, right in zip(row, row[1:], strict=False):
            needed = (extent[left].width + extent[right].width) / 2 + pad + _GAP * line
            width = max(width, needed / (x[right] - x[left]))
    edge_height = max((text.get_window_extent(renderer).height for text in edges), default=0)
    node_height = max(box.height for box in extent.values()) + pad
    height = len(levels) * (node_height + edge_height + 2 * _GAP * line)
    axes = ax.get_position()  # the axes' share of the figure
    wanted = (width / axes.width / figure.dpi, height / axes.height / figure.dpi)
    current = figure.get_size_inches()
    figure.set_size_inches(*(min(max(have, want), _LARGEST)
                             for have, want in zip(current, wanted, strict=True)),
                           forward=True)


def _wrap_test(test: str) -> str:
    """A long test ``name op value`` on two lines: the name, then ``op value``."""
    parts = test.rsplit(" ", 2)
    if len(test) <= 14 or len(parts) < 3:
        return test
    return f"{parts[0]}\n{parts[1]} {parts[2]}"


def _set_sizes(nodes, edges, size):
    for text in nodes:
        text.set_fontsize(size)
    for text in edges:
        text.set_fontsize(size * 0.9)


def _fit_text(ax, nodes, edges, texts) -> float:
    """Set the largest text size (1 to 12 points) at which no two labels (with their box
    padding) overlap and all lie inside the axes; return it.

    Laying text out is slow, so the labels are measured once: their extents grow in
    proportion to the size around their anchors, which gives the size by bisection; the
    drawn extents then confirm it (or it shrinks a little until they do).
    """
    renderer = ax.figure.canvas.get_renderer()
    points = 72 / ax.figure.dpi
    # the labels may use the figure's margins when the axes is alone in it
    area = ax.figure.bbox if len(ax.figure.axes) == 1 else ax.get_window_extent(renderer)

    def extents():
        return np.array([t.get_window_extent(renderer).extents for t in texts])

    def fits(corners, size):
        pad = 0.35 * size / points  # the box padding, in pixels
        corners = corners + np.array([-pad, -pad, pad, pad])
        inside = ((corners[:, 0] >= area.x0) & (corners[:, 1] >= area.y0)
                  & (corners[:, 2] <= area.x1) & (corners[:, 3] <= area.y1)).all()
        return bool(inside) and not _any_overlap(corners)

    reference = 10.0
    _set_sizes(nodes, edges, reference)
    measured = extents()
    anchors = ax.transAxes.transform([t.xy for t in texts])
    anchors = np.hstack([anchors, anchors])

    def scaled(size):
        return anchors + (measured - anchors) * (size / reference)

    low, high = 1.0, 12.0
    if fits(scaled(high), high):
        low = high
    else:
        for _ in range(12):
            middle = (low + high) / 2
            low, high = (middle, high) if fits(scaled(middle), middle) else (low, middle)
    _set_sizes(nodes, edges, low)
    while low > 1.0 and not fits(extents(), low):
        low = max(1.0, low * 0.95)
        _set_sizes(nodes, edges, low)
    return low


def _any_overlap(corners) -> bool:
    """Whether any two of the boxes ``(x0, y0, x1, y1)`` overlap."""
    x0, y0, x1, y1 = corners.T
    overlap = ((x0[:, None] < x1[None]) & (x0[None] < x1[:, None])
               & (y0[:, None] < y1[None]) & (y0[None] < y1[:, None]))
    np.fill_diagonal(overlap, False)
    return bool(overlap.any())


def _check_max_depth(max_depth):
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be None or >= 0, got {max_depth}")


def _fitted_parts(model):
    """The tree and its binary features; NotFittedError when the model was not fitted."""
    if not hasattr(model, "tree_"):
        raise NotFittedError(
            f"This {type(model).__name__} instance is not fitted yet; call 'fit' first.")
    return model.tree_, model.binary_features_


def _column_names(features, feature_names):
    """Name of each original column a test may refer to (a dict), or None for the fitted ones."""
    if feature_names is None:
        return None
    names = [str(name) for name in feature_names]
    needed = 1 + max((f.column for f in features), default=-1)
    if len(names) < needed:
        raise ValueError(f"feature_names has {len(names)} names but the tree tests column "
                         f"{needed - 1}")
    return names


def _test_text(feature, holds, column_names=None) -> str:
    """The test of ``feature`` as text: where it holds (``holds``) or where it fails. A bool
    column reads ``name`` / ``not name``."""
    if column_names is not None:
        feature = replace(feature, column_name=column_names[feature.column])
    if feature.kind == "category" and isinstance(feature.value, bool | np.bool_):
        true = holds == bool(feature.value)
        return feature.column_name if true else f"not {feature.column_name}"
    return feature.name if holds else feature.negation


def _branches(tree, features, node, column_names=None):
    """The children of a split, true branch first, each with the test that holds on it."""
    feature = features[tree.feature[node]]
    return ((tree.children_right[node], _test_text(feature, True, column_names)),
            (tree.children_left[node], _test_text(feature, False, column_names)))


def _shown_children(tree, features, column_names, max_depth):
    """The drawn part of the tree: for each drawn node its drawn children with their tests
    (true branch first), and its depth. The children of nodes at ``max_depth`` are drawn as
    ``(...)`` leaves."""
    children, depth = {}, {}

    def visit(node, level):
        children[node], depth[node] = [], level
        if tree.is_leaf(node) or (max_depth is not None and level > max_depth):
            return
        for child, test in _branches(tree, features, node, column_names):
            children[node].append((child, test))
            visit(child, level + 1)

    visit(0, 0)
    return children, depth


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


def _clusters(model):
    """For a clusterer (``cluster_centers_``): each leaf's cluster number (leaves in id order,
    as ``labels_``), else None."""
    centers = getattr(model, "cluster_centers_", None)
    if centers is None:
        return None
    leaves = np.flatnonzero(model.tree_.is_leaf_mask())
    return {int(leaf): k for k, leaf in enumerate(leaves.tolist()) if k < len(centers)}


def _centroid_text(centroid, decimals) -> str:
    return "[" + ", ".join(f"{v:.{decimals}f}" for v in np.ravel(centroid)) + "]"


def _leaf_text(model, node, predicted, names, clusters, decimals, show_weights) -> str:
    values = model.tree_.value[node, 0]
    if clusters is not None and node in clusters:
        k = clusters[node]
        return (f"cluster: {k} centroid: "
                f"{_centroid_text(model.cluster_centers_[k], decimals)}")
    if predicted is None:
        return f"value: {_format_values(values, decimals)}"
    text = f"class: {names[predicted[node]]}"
    if show_weights:
        text = f"weights: [{', '.join(_format_weight(v, decimals) for v in values)}] {text}"
    return text


class _Labeller:
    """The lines of each node's box in DOT and plots, after scikit-learn's options."""

    def __init__(self, model, *, feature_names, class_names, label, impurity, node_ids,
                 proportion, precision):
        if label not in ("all", "root", "none"):
            raise ValueError(f"label must be 'all', 'root' or 'none', got {label!r}")
        if precision is None or precision < 0:
            raise ValueError(f"precision must be an int >= 0, got {precision}")
        self.model, self.tree = model, model.tree_
        self.column_names = _column_names(model.binary_features_, feature_names)
        self.predicted = _node_classes(model)
        self.class_names = None if class_names is False else _class_names(
            model, None if class_names is True else class_names)
        self.clusters = _clusters(model)
        self.label, self.impurity, self.node_ids = label, impurity, node_ids
        self.proportion, self.precision = proportion, precision

    def lines(self, node) -> list[str]:
        tree, digits = self.tree, self.precision
        named = self.label == "all" or (self.label == "root" and node == 0)

        def line(name, text):
            return f"{name} = {text}" if named else text

        values = tree.value[node, 0]
        out = []
        if self.node_ids:
            out.append(f"node #{node}" if named else f"#{node}")
        if self.impurity and self.predicted is not None:
            total = values.sum()
            gini = 1 - ((values / total) ** 2).sum() if total > 0 else 0.0
            out.append(line("gini", f"{gini:.{digits}f}"))
        samples = tree.n_node_samples[node]
        if self.proportion:
            share = 100 * samples / tree.n_node_samples[0] if tree.n_node_samples[0] else 0.0
            out.append(line("samples", f"{share:.{max(digits - 2, 0)}f}%"))
        else:
            out.append(line("samples", f"{samples}"))
        if self.clusters is not None:
            if node in self.clusters:
                k = self.clusters[node]
                out.append(line("cluster", f"{k}"))
                out.append(line("centroid", _centroid_text(
                    self.model.cluster_centers_[k], digits)))
            return out
        if self.predicted is None:
            out.append(line("value", _format_values(values, digits)))
            return out
        if self.proportion:
            total = values.sum()
            shares = values / total if total > 0 else values
            out.append(line("value", "[" + ", ".join(f"{v:.{digits}f}" for v in shares) + "]"))
        else:
            out.append(line("value", f"[{', '.join(_format_weight(v, digits) for v in values)}]"))
        if self.class_names is not None:
            out.append(line("class", self.class_names[self.predicted[node]]))
        return out


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
    """A class weight: an integer when it is one (up to rounding noise), else with
    ``decimals`` decimals."""
    if abs(value - round(value)) <= 1e-9 * max(1.0, abs(value)):
        return str(round(value))
    return f"{value:.{decimals}f}"


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


def _dot_html(text: str) -> str:
    """A DOT HTML-like label: ``<=`` and ``>=`` as symbols, newlines as ``<br/>``."""
    escaped = (text.replace("&", "&amp;").replace("<=", "&le;").replace(">=", "&ge;")
               .replace("!=", "&ne;").replace("<", "&lt;").replace(">", "&gt;")
               .replace('"', "&quot;").replace("\n", "<br/>"))
    return f"<{escaped}>"


def _layout(children, depth):
    """Axes-fraction positions of the drawn nodes: leaves spread evenly in display order,
    parents centred above their children."""
    n_leaves = sum(1 for kids in children.values() if not kids)
    n_levels = max(depth.values()) + 1
    x, y = {}, {}
    next_slot = 0

    def place(node):
        nonlocal next_slot
        y[node] = 1 - (depth[node] + 0.5) / n_levels
        if not children[node]:
            x[node] = (next_slot + 0.5) / n_leaves
            next_slot += 1
            return
        for child, _ in children[node]:
            place(child)
        x[node] = sum(x[child] for child, _ in children[node]) / len(children[node])

    place(0)
    return x, y


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
