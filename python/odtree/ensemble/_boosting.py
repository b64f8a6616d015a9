"""Optimal forests (thesis chapter 6): LPBoost and MDBoost by column generation, where each
new tree is the optimal weighted tree for the master's instance weights.

Multi-class data uses the "right or wrong" encoding of each tree (spec §3.1): a tree's column
is +1 on the rows whose class it predicts and -1 on the others, one master covers every
class, and the forest predicts the class with the most tree weight. A positive margin then
means a correct prediction (the right class holds more than half the weight). One-vs-rest
was measured as well (iris, wine, blobs at depths 1-2): its training accuracy was no better
and it needs one master and one solver per class.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._search.fitting import one_fit_at_a_time
from .._search.solver import Solver
from .._search.vocabulary import MAX_DEPTH
from .._utils.deadline import Deadline
from .._utils.registry import register
from .._utils.warn import warn
from ..exceptions import NotOptimalWarning
from ..preprocessing._binarizer import Binarizer
from ..tree._arrays import TREE_UNDEFINED, Tree
from ..tree._base import (
    CACHE_ATTRIBUTES,
    BinarizedModel,
    binarize_input,
    rows_per_node,
    settle_missing_directions,
)
from ..tree._classifier import OptimalTreeClassifier
from ..tree._fitted import set_input
from ..tree._validation import validate_classification
from ._json import forest_from_dict, forest_to_json
from ._master import DemirizMaster, LPBoostMaster, MDBoostMaster
from ._members import Iteration, member_tree

#: Settings of the template tree that change what a tree scores, so its edge: the pricing
#: needs the plain weighted misclassification.
_OBJECTIVE_SETTINGS = ("cost_matrix", "error_function", "fast_error_function", "upper_bound")


class _OptimalBoosting(ClassifierMixin, BinarizedModel, BaseEstimator):
    """Column generation shared by :class:`LPBoostClassifier` and :class:`MDBoostClassifier`.

    Subclasses give ``_master(n_rows)`` and ``_signed`` (whether the instance weights take
    both signs).
    """

    _signed = False
    #: Written to JSON by :mod:`odtree.ensemble._json` (through the two methods below).
    _own_json = True

    def _to_json_text(self, indent=None) -> str:
        """This forest as the JSON text of :func:`odtree.to_json`."""
        return forest_to_json(self, indent)

    @classmethod
    def _from_json_dict(cls, data: dict):
        """The forest :func:`odtree.from_json` reads from ``data``."""
        return forest_from_dict(data, cls)

    _parameter_constraints: dict = {
        "D": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 0, MAX_DEPTH, closed="both")],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "estimator": [HasMethods(["fit", "get_params"]), None],
        "pricing": [StrOptions({"optimal", "greedy"})],
        "max_iterations": [Interval(Integral, 1, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        register(cls)

    @one_fit_at_a_time
    def fit(self, X, y):
        """Grows the forest.

        Parameters
        ----------
        X : array-like, sparse matrix or pandas DataFrame of shape (n_samples, n_features)
            Training data, binarized as the trees' (see ``estimator``).
        y : array-like of shape (n_samples,)
            Class labels, at least two classes.

        Returns
        -------
        self
        """
        self._validate_params()
        start = time.monotonic()
        template = self._template()
        X, y = validate_classification(self, X, y, missing=template.missing)
        self.classes_, codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"a forest needs at least two classes in y, got 1 class "
                             f"({self.classes_[0]!r})")
        master = self._master(len(codes))
        deadline = Deadline(self.time_limit, start=start)
        # the pricing searches 0/1 features: "auto" is the quantile grid
        strategy = "quantile" if template.thresholds == "auto" else template.thresholds
        self.binarizer_ = Binarizer(strategy=strategy,
                                    n_thresholds=template.n_thresholds, missing=template.missing)
        binary = np.ascontiguousarray(self.binarizer_._fit_kept(
            X, y, np.ones(len(codes)), validated=True, deadline=deadline), dtype=np.uint8)
        set_input(self, self.binarizer_)
        self._grow(template, binary, codes, master, start, deadline)
        return self

    def _missing(self) -> str:
        """The ``missing`` setting of the trees' estimator, which the forest binarizes with."""
        return getattr(self.estimator, "missing", "error")

    def _template(self) -> OptimalTreeClassifier:
        """The unfitted tree whose search settings each pricing uses."""
        template = clone(self.estimator) if self.estimator is not None else \
            OptimalTreeClassifier()
        if not isinstance(template, OptimalTreeClassifier):
            raise TypeError(f"estimator must be an OptimalTreeClassifier, got "
                            f"{type(template).__name__}")
        changed = [name for name in _OBJECTIVE_SETTINGS if getattr(template, name) is not None]
        if template.ccp_alpha > 0:
            changed.append("ccp_alpha")
        # the pricing's weights are the dual prices: no leaf weight or class order to keep
        if template.min_samples_split != 2:
            changed.append("min_samples_split")
        if template.min_weight_fraction_leaf != 0:
            changed.append("min_weight_fraction_leaf")
        if template.monotonic_cst is not None:
            changed.append("monotonic_cst")
        if changed:
            raise ValueError(f"the forest's trees minimise the weighted misclassification; "
                             f"the estimator must not set {', '.join(changed)}")
        if template.thresholds == "exact":
            raise ValueError("a forest prices its trees on 0/1 features: thresholds='exact' "
                             "is not offered; use 'auto' (the quantile grid) or 'midpoints'")
        return template.set_params(max_depth=self.max_depth,
                                   min_samples_leaf=self.min_samples_leaf, time_limit=None)

    def _grow(self, template, binary, codes, master, start, deadline) -> None:
        """The column generation (thesis Alg. 11); sets the fitted attributes."""
        pricer = _Pricer(self, template, binary, codes)
        weights = np.full(len(codes), 1.0 / len(codes))
        seen, members, threshold = set(), [], -np.inf
        tree_weights = np.zeros(0)
        self.log_, self.optimal_ = [], False
        lower, upper = -np.inf, np.inf
        stopped = None  # the time limit or Ctrl-C, when either ended the generation
        while True:
            if deadline.passed():
                stopped = f"time limit of {self.time_limit} s reached"
                break
            if self.max_iterations is not None and len(members) >= self.max_iterations:
                break
            member, correct, edge, most = pricer.price(weights, deadline.left())
            if member.status_ == "interrupted":  # Ctrl-C: the forest so far, unproven
                stopped = "interrupted"
                break
            if members:
                lower, upper = master.bounds(most)
            enters = not members or edge > threshold + self.tol * np.abs(weights).sum()
            key = correct.tobytes()
            if enters and key in seen:  # the master has it: its edge is within its tolerance
                enters = False
            if not enters:
                self.optimal_ = member.optimal_
                self.log_.append(Iteration(time.monotonic() - start, master.objective, edge,
                                           False, member.optimal_))
                break
            seen.add(key)
            members.append(member)
            master.add_tree(correct)
            threshold, weights, tree_weights = master.solve()
            self.log_.append(Iteration(time.monotonic() - start, master.objective, edge, True,
                                       member.optimal_))
        if members:  # the objective reached holds, whatever the last pricing saw
            lower, upper = (master.objective, upper) if master.maximises else \
                (lower, master.objective)
        kept = np.flatnonzero(tree_weights > 0)
        self.estimators_ = [members[t] for t in kept]
        self.estimator_weights_ = tree_weights[kept]
        self.objective_ = master.objective if members else float("nan")
        self.lower_bound_, self.upper_bound_ = lower, upper
        self.n_iter_ = len(members)
        votes = self._votes(binary)
        self.margins_ = 2 * votes[np.arange(len(codes)), codes] - votes.sum(axis=1)
        self.fit_time_ = time.monotonic() - start
        if stopped is not None:
            what = (f"the forest of the {len(members)} trees priced so far" if members else
                    f"no tree was priced: the forest is empty and predicts "
                    f"{self.classes_[0].item()!r} everywhere")
            warn(f"{stopped}: {what}; it is not proven optimal", NotOptimalWarning)

    def _votes(self, binary) -> np.ndarray:
        """Each row's total tree weight per class."""
        votes = np.zeros((len(binary), len(self.classes_)))
        rows = np.arange(len(binary))
        for member, weight in zip(self.estimators_, self.estimator_weights_, strict=True):
            votes[rows, member.node_classes_[member.tree_.apply(binary)]] += weight
        return votes

    def decision_function(self, X) -> np.ndarray:
        """The trees' weighted vote, as a share of their total weight.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            With two classes, the vote for ``classes_[1]`` less the vote for ``classes_[0]``
            (the normalised margin); with more, each class's share of the vote.
        """
        shares = self.predict_proba(X)
        return shares[:, 1] - shares[:, 0] if len(self.classes_) == 2 else shares

    def predict_proba(self, X) -> np.ndarray:
        """Each class's share of the trees' weight (uniform for a forest without trees)."""
        check_is_fitted(self)
        votes = self._votes(binarize_input(self, X))
        total = votes.sum(axis=1, keepdims=True)
        return np.divide(votes, total, out=np.full_like(votes, 1 / votes.shape[1]),
                         where=total > 0)

    def predict(self, X) -> np.ndarray:
        """The class with the most tree weight (the first such class on ties)."""
        shares = self.predict_proba(X)
        return self.classes_[np.argmax(shares, axis=1)]


class _Pricer:
    """Finds the tree of largest edge ``sum_i u_i z_i`` for instance weights ``u``.

    With ``u >= 0`` the edge is ``sum_i u_i`` less twice the weighted misclassification.
    MDBoost's weights take both signs, which the search's bounds do not allow; the solver
    holds the rows twice instead, and the weights pick a copy: ``u_i`` on the first, ``-u_i``
    on the second when ``u_i < 0``. Each row then counts once towards ``min_samples_leaf``
    (rows of weight 0 do not count). A row of negative weight ``-v`` and class ``c`` must push
    its leaf away from ``c``:

    - two classes: its copy has the other class, weight ``v`` (the leaves' argmax is the same
      and the error moves by a constant);
    - more: its copy has a class of its own, ``n_classes + c``, and a cost matrix charges
      ``v`` when a leaf predicts ``c``, 0 for another real class, and makes every copy class
      a worse prediction than any real one.

    Either way a tree's edge is a constant less twice its cost (:meth:`_weights`).
    """

    def __init__(self, forest, template, binary, codes):
        self.forest, self.template, self.binary, self.codes = forest, template, binary, codes
        k = self.n_classes = len(forest.classes_)
        if not forest._signed:
            self.stacked, self.labels, self.n_labels = binary, codes, k
        else:
            self.stacked = np.ascontiguousarray(np.vstack([binary, binary]))
            self.labels = np.concatenate([codes, 1 - codes if k == 2 else codes + k])
        self.n_labels = 2 if k == 2 else 2 * k
        self.labels = np.ascontiguousarray(self.labels, dtype=np.uint32)
        self.objective = {"objective": "misclassification"}
        if self.n_labels > k:
            costs = np.ones((self.n_labels, self.n_labels))
            costs[:k, :k] -= np.eye(k)
            costs[k:, :k] = np.eye(k)
            self.objective = {"objective": "cost_matrix", "cost_matrix": costs}
        self.solver = Solver._from_codes(self.stacked, self.labels, self.n_labels) \
            if forest.pricing == "optimal" else None

    def _weights(self, u) -> np.ndarray:
        """The solver's row weights. Under them a tree's edge is ``sum_i |u_i|`` less twice
        its cost: a leaf costs its positive weight less ``max_c S_c``, with
        ``S_c = sum_i u_i [y_i = c]`` over its rows, and the edge is the sum over the leaves
        of ``2 max_c S_c - sum_i u_i``."""
        positive = np.maximum(u, 0.0)
        if not self.forest._signed:
            return positive
        return np.concatenate([positive, np.maximum(-u, 0.0)])

    def _node_classes(self, value) -> np.ndarray:
        """Each node's class, from the weighted label sums the search gives: the class of
        largest ``S_c`` (the heaviest label for two classes, where that is the same)."""
        value = value[:, 0, :]
        k = self.n_classes
        scores = value[:, :k] - value[:, k:] if value.shape[1] > k else value
        return np.argmax(scores, axis=1)

    def price(self, u, time_limit):
        """``(member, correct, edge, most)``: the tree as a fitted classifier, where it is
        right, its edge, and the largest edge any tree can have (proven by the search)."""
        weights, perfect = self._weights(u), float(np.abs(u).sum())
        started = time.perf_counter()
        if self.solver is None:
            tree, lower_bound, status = self._greedy(weights)
            objective, cache = float("nan"), {}
        else:
            settings = {name: getattr(self.template, name)
                        for name in OptimalTreeClassifier._SOLVE_SETTINGS}
            solution = self.solver.solve(weights, **settings, **self.objective,
                                         time_limit=time_limit,
                                         max_leaf_nodes=self.template.max_leaf_nodes)
            tree, lower_bound, status = solution.tree, solution.lower_bound, solution.status
            objective, cache = solution.objective, solution.cache
        settle_missing_directions(tree, self.forest.binary_features_, self.binary)
        node_classes = self._node_classes(tree.value)
        correct = node_classes[tree.apply(self.binary)] == self.codes
        edge = float(u @ np.where(correct, 1.0, -1.0))
        member = member_tree(self.forest, self.template, self._by_class(tree, np.abs(u)),
                             node_classes, objective=objective, lower_bound=lower_bound,
                             status=status, fit_time=time.perf_counter() - started,
                             **{attribute.removesuffix("_"): cache.get(name, 0)
                                for name, attribute in CACHE_ATTRIBUTES.items()})
        return member, correct, edge, max(edge, perfect - 2 * lower_bound)

    def _by_class(self, tree: Tree, weights) -> Tree:
        """``tree`` with each node's weighted class sums over the training rows (weighted by
        ``|u|``), in place of the search's sums over its labels."""
        nodes = rows_per_node(tree, self.binary)
        value = np.zeros((tree.node_count, 1, self.n_classes))
        for node, rows in enumerate(nodes):
            np.add.at(value[node, 0], self.codes[rows], weights[rows])
        return Tree(children_left=tree.children_left, children_right=tree.children_right,
                    feature=tree.feature, value=value,
                    n_node_samples=np.array([len(rows) for rows in nodes]),
                    weighted_n_node_samples=value[:, 0, :].sum(axis=1))

    def _greedy(self, weights):
        """CART's tree (weighted Gini over the solver's labels, scikit-learn) as the pricing,
        for comparison."""
        cart = DecisionTreeClassifier(
            max_depth=self.template.max_depth, max_leaf_nodes=self.template.max_leaf_nodes,
            min_samples_leaf=self.template.min_samples_leaf, random_state=0)
        kept = weights > 0  # scikit-learn counts rows of weight 0 in min_samples_leaf
        cart.fit(self.stacked[kept], self.labels[kept], sample_weight=weights[kept])
        source = cart.tree_
        value = np.zeros((source.node_count, 1, self.n_labels))
        value[:, 0, cart.classes_] = source.value[:, 0, :] * \
            source.weighted_n_node_samples[:, np.newaxis]
        leaf = source.children_left < 0
        # a split on a 0/1 column sends 0 left (x <= 0.5), as our trees do
        tree = Tree(children_left=source.children_left, children_right=source.children_right,
                    feature=np.where(leaf, TREE_UNDEFINED, source.feature), value=value,
                    n_node_samples=source.n_node_samples,
                    weighted_n_node_samples=source.weighted_n_node_samples)
        return tree, 0.0, "heuristic"


class LPBoostClassifier(_OptimalBoosting):
    """A forest whose tree weights are optimal for LPBoost's soft margin, over every tree of
    depth ``max_depth``.

    Column generation (thesis Alg. 11): the master LP over the trees found so far gives
    instance weights ``u``; the optimal weighted tree for them enters while its edge
    ``sum_i u_i z_i`` (``z_i``: +1 where it predicts row i's class, -1 where not) exceeds the
    master's threshold by more than ``tol``. When none does, the forest is optimal
    (``optimal_``).

    Parameters
    ----------
    D : float, default=0.1
        The regulariser. ``form="thesis"``: the cap on each instance weight (the weights sum
        to 1), between ``1/n_samples`` (softest) and 1 (hard margin). ``form="demiriz"``: the
        cost of a unit of slack, above ``1/n_samples``.
    max_depth : int, default=1
        The trees' depth.
    min_samples_leaf : int, default=1
        The fewest training rows in a leaf.
    estimator : OptimalTreeClassifier or None, default=None
        Its other search settings (``search``, ``cache``, ``thresholds``, ``missing``,
        ``max_leaf_nodes``, ...) shape every tree; its ``max_depth``, ``min_samples_leaf``
        and ``time_limit`` are replaced by the forest's. It must keep the plain
        misclassification (no ``cost_matrix``, error function, ``upper_bound`` or
        ``ccp_alpha``). Its ``n_jobs`` sets the threads of each pricing search: the column
        generation prices one tree at a time, each from the master's last dual prices, so
        there are no independent pricings to share out.
    form : {"thesis", "demiriz"}, default="thesis"
        The LP: the thesis's (eqs. 6.9-6.10, ``max rho - D sum xi`` with tree weights summing
        to 1) or Demiriz et al.'s (``min sum a + D sum xi`` with margins of at least 1).
    pricing : {"optimal", "greedy"}, default="optimal"
        How a tree is found: the optimal weighted tree, or CART's (weighted Gini, from
        scikit-learn), which proves nothing; kept for the thesis's comparison.
    max_iterations : int or None, default=None
        At most this many trees are priced.
    time_limit : float or None, default=None
        Seconds for the whole fit; the forest so far is returned with ``optimal_ = False``.
    tol : float, default=1e-6
        A tree enters only if its edge exceeds the threshold by more than ``tol`` times the
        instance weights' total.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    estimators_ : list of OptimalTreeClassifier
        The trees of positive weight, each a fitted classifier on the forest's input (their
        ``objective_`` is the weighted error they were priced with).
    estimator_weights_ : ndarray of shape (n_estimators,)
        The weight of each tree of ``estimators_`` in the vote.
    margins_ : ndarray of shape (n_samples,)
        Each training row's unnormalised margin: the weight of the trees right on it less the
        weight of those wrong.
    objective_ : float
        The master's optimum over the trees found (``nan`` without trees).
    lower_bound_, upper_bound_ : float
        The optimum over every tree of this depth lies between them: pricing bounds the edge
        of any tree. They meet (up to ``tol``) when ``optimal_``.
    optimal_ : bool
        Whether the last pricing proved that no tree improves the master.
    n_iter_ : int
        The trees that entered the master (some may end with weight 0).
    log_ : list of Iteration
        Time, objective, edge and proof of each pricing.
    binarizer_ : Binarizer
        The mapping from input columns to the binary features, shared by all the trees.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Input column names (only with a pandas DataFrame whose column names are strings).
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from odtree import LPBoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = LPBoostClassifier(D=0.05, max_depth=1).fit(X, y)
    >>> forest.optimal_, len(forest.estimators_) > 1
    (True, True)
    """

    _parameter_constraints: dict = {
        **_OptimalBoosting._parameter_constraints,
        "form": [StrOptions({"thesis", "demiriz"})],
    }

    def __init__(self, D=0.1, max_depth=1, min_samples_leaf=1, *, estimator=None,
                 form="thesis", pricing="optimal", max_iterations=None, time_limit=None,
                 tol=1e-6):
        self.D = D
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.estimator = estimator
        self.form = form
        self.pricing = pricing
        self.max_iterations = max_iterations
        self.time_limit = time_limit
        self.tol = tol

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # LPBoost maximises the least margin, and many forests may reach it: on data where
        # it is not positive (scikit-learn's three overlapping blobs) the forest HiGHS picks
        # can classify poorly (80 % at depth 1, where MDBoost reaches 91 %)
        tags.classifier_tags.poor_score = True
        return tags

    def _master(self, n_rows):
        if self.form == "demiriz":
            return DemirizMaster(n_rows, self.D)
        if self.D > 1:
            raise ValueError(f"D={self.D}: LPBoost's cap on an instance weight must be at most 1")
        return LPBoostMaster(n_rows, self.D)


class MDBoostClassifier(_OptimalBoosting):
    """A forest whose tree weights are optimal for MDBoost's margin distribution (the
    margins' mean less half their variance), over every tree of depth ``max_depth``.

    Column generation as for :class:`LPBoostClassifier`, with MDBoost's QP (thesis eqs.
    6.11-6.12) as the master. Its instance weights take both signs: a row already far above
    the mean margin pushes the next tree to be wrong on it; the pricing handles that by
    turning a negative weight into weight on the other classes.

    Parameters
    ----------
    D : float, default=1.0
        The tree weights' sum, the scale of the margins: a larger ``D`` weighs their variance
        more against their mean. The thesis tunes it over {0.5, 1, 3, 6, 12, 25, 50, 100}.
    max_depth, min_samples_leaf, estimator, pricing, max_iterations, time_limit, tol
        As for :class:`LPBoostClassifier`.

    Attributes
    ----------
    objective_ : float
        The master's optimum over the trees found: ``sum(margins_)`` less ``n / 2`` times
        the margins' sample variance (``nan`` without trees).
    classes_, estimators_, estimator_weights_, margins_, lower_bound_, upper_bound_, \
optimal_, n_iter_, log_, binarizer_, n_features_in_, feature_names_in_, fit_time_
        As for :class:`LPBoostClassifier`.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from odtree import MDBoostClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = MDBoostClassifier(D=1.0, max_depth=1).fit(X, y)
    >>> bool(forest.score(X, y) > 0.9)
    True
    """

    _signed = True

    def __init__(self, D=1.0, max_depth=1, min_samples_leaf=1, *, estimator=None,
                 pricing="optimal", max_iterations=None, time_limit=None, tol=1e-6):
        self.D = D
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.estimator = estimator
        self.pricing = pricing
        self.max_iterations = max_iterations
        self.time_limit = time_limit
        self.tol = tol

    def _master(self, n_rows):
        return MDBoostMaster(n_rows, self.D)
