"""DT-SLIM: shallower trees that classify the training rows as before."""


import numpy as np
import pytest
from odtree import DepthImprover, OptimalTreeClassifier, export_text, from_json, improve_depth
from odtree._utils.deadline import Deadline
from odtree.datasets import load_benchmark
from odtree.slim import _pilot as pilot
from odtree.slim._pilot import SETTINGS, Rollouts, _chains, best_pilot_tree, pilot_tree
from odtree.slim._sat import min_depth_tree
from odtree.slim._slimmer import dp_min_depth, support_set
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier


def brute_min_depth(X, labels):
    """The least depth of a tree classifying every row, by exhaustive recursion."""
    def depth(rows, limit):
        if len(set(labels[rows])) <= 1:
            return 0
        if limit == 0:
            return None
        best = None
        for f in range(X.shape[1]):
            ones = rows[X[rows, f] == 1]
            zeros = rows[X[rows, f] == 0]
            if len(ones) == 0 or len(zeros) == 0:
                continue
            a = depth(ones, limit - 1)
            b = depth(zeros, limit - 1) if a is not None else None
            if a is not None and b is not None:
                found = 1 + max(a, b)
                if best is None or found < best:
                    best, limit = found, found - 1
        return best
    return depth(np.arange(len(X)), X.shape[1])


def consistent_instance(seed, n=9, k=4, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, k)).astype(np.uint8)
    X, first = np.unique(X, axis=0, return_index=True)
    return X, rng.integers(0, n_classes, len(X))


@pytest.mark.parametrize("seed", range(30))
def test_both_oracles_find_the_least_depth(seed):
    X, labels = consistent_instance(seed)
    least = brute_min_depth(X, labels)
    start = X.shape[1]
    dp, outcome, proved = dp_min_depth(X, labels, start, 10.0)
    sat, _ = min_depth_tree(X, labels, start, time_limit=10.0)
    for tree in (dp, sat):
        assert tree is not None and tree.depth() == least
        assert np.array_equal(tree.predict(X), labels)
    assert proved == least  # every lower depth proved infeasible
    below, outcome, proved = dp_min_depth(X, labels, least - 1, 10.0)
    assert below is None and outcome == "unsat" and proved == least


@pytest.mark.parametrize("seed", range(5))
def test_the_engine_oracle_on_threads_finds_the_same_tree(seed):
    X, labels = consistent_instance(seed)
    one, outcome, proved = dp_min_depth(X, labels, X.shape[1], 10.0)
    many, outcome_many, proved_many = dp_min_depth(X, labels, X.shape[1], 10.0, n_jobs=2)
    assert (outcome_many, proved_many) == (outcome, proved)
    for part in ("feature", "child0", "child1", "label"):
        assert np.array_equal(getattr(many, part), getattr(one, part))


def test_the_engine_oracle_spends_an_error_budget():
    X, labels = consistent_instance(3, n=16, k=4, n_classes=2)
    counts = np.ones(len(X))
    exact, *_ = dp_min_depth(X, labels, 4, 10.0, counts=counts)
    relaxed, *_ = dp_min_depth(X, labels, 4, 10.0, counts=counts, errors=3)
    assert relaxed.depth() <= exact.depth()
    assert np.count_nonzero(relaxed.predict(X) != labels) <= 3


def test_a_support_set_separates_every_pair_of_classes():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (60, 20)).astype(np.uint8)
    labels = X[:, 3] ^ X[:, 7] ^ (X[:, 11] & X[:, 2])
    chosen = support_set(X, labels, rng, np.arange(20))
    keys = {}
    for row, label in zip(map(bytes, X[:, chosen]), labels, strict=True):
        assert keys.setdefault(row, label) == label
    assert len(chosen) <= 6


@pytest.mark.parametrize("seed", range(6))
def test_the_improved_tree_classifies_the_training_rows_as_before(seed):
    X, y = make_classification(400, 8, n_informative=5, n_classes=3, random_state=seed)
    cart = DecisionTreeClassifier(random_state=seed).fit(X, y)
    model = improve_depth(cart, X, y, time_limit=6, sat_timeout=2)
    assert np.array_equal(model.predict(X), cart.predict(X))
    assert model.get_depth() <= cart.get_depth() == model.original_depth_
    assert "rejected" not in {attempt.outcome for attempt in model.slim_log_}
    depths = model.depth_log_[:, 1]
    assert np.all(np.diff(depths) <= 0) and depths[-1] == model.get_depth()
    assert sum(model.oracle_wins_.values()) == len(depths) - 1
    if seed == 0:
        assert model.get_depth() < cart.get_depth()


@pytest.mark.parametrize("oracle", ["sat", "dp"])
def test_each_oracle_alone_keeps_the_classification(oracle):
    X, y = make_classification(300, 6, n_informative=4, random_state=1)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = improve_depth(cart, X, y, oracle=oracle, time_limit=5, sat_timeout=2,
                          pilot=False)
    assert np.array_equal(model.predict(X), cart.predict(X))
    assert model.get_depth() <= cart.get_depth()
    assert set(model.oracle_wins_) == {"sat", "dp", "pilot"}
    assert all(attempt.oracle == oracle for attempt in model.slim_log_)


def test_an_error_budget_is_never_exceeded():
    X, y = make_classification(300, 6, n_informative=4, random_state=2)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    relaxed = improve_depth(cart, X, y, oracle="dp", time_limit=5, sat_timeout=2,
                            max_errors=10)
    assert np.count_nonzero(relaxed.predict(X) != cart.predict(X)) <= 10
    assert relaxed.get_depth() < cart.get_depth()


def test_an_odtree_tree_improves_and_prints_and_saves():
    X, y = make_classification(200, 5, random_state=3)
    deep = OptimalTreeClassifier(max_depth=6, time_limit=5).fit(X, y)
    model = improve_depth(deep, X, y, time_limit=4, sat_timeout=2)
    assert np.array_equal(model.predict(X), deep.predict(X))
    assert "class" in export_text(model)
    assert np.array_equal(from_json(model.to_json()).predict(X), model.predict(X))


def test_missing_values_are_a_clear_error():
    X, y = make_classification(60, 4, random_state=0)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="improve_depth needs X without missing values"):
        improve_depth(cart, X, y)
    with pytest.raises(ValueError, match="improve_depth needs X without missing values"):
        DepthImprover(time_limit=1).fit(X, y)


def test_a_proved_lower_bound_on_the_depth():
    """The 6-multiplexer needs depth 3: the engine proves it, and the improved tree reaches
    it."""
    X, y = load_benchmark("nina/mux6-un_converted")
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = improve_depth(cart, X, y, time_limit=30, sat_timeout=2)
    assert model.depth_lower_bound_ == model.get_depth() == 3 < cart.get_depth()
    assert model.fit_time_ < 15  # it stops there


def test_the_meta_estimator_fits_cart_and_improves_it():
    X, y = make_classification(300, 6, random_state=4)
    improver = DepthImprover(time_limit=5, sat_timeout=2).fit(X, y)
    assert isinstance(improver.original_, DecisionTreeClassifier)
    assert np.array_equal(improver.predict(X), improver.original_.predict(X))
    assert improver.improved_.get_depth() <= improver.original_.get_depth()
    prefit = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert DepthImprover(prefit, time_limit=1).fit(X, y).original_ is prefit
    # scikit-learn's tree API, as the improved tree's
    tree = improver.improved_
    assert (improver.decision_path(X) != tree.decision_path(X)).nnz == 0
    assert np.array_equal(improver.predict_log_proba(X), tree.predict_log_proba(X))
    assert np.array_equal(improver.feature_importances_, tree.feature_importances_)
    assert (improver.get_depth(), improver.get_n_leaves(), improver.n_classes_) == \
        (tree.get_depth(), tree.get_n_leaves(), 2)
    assert np.array_equal(improver.to_sklearn().predict(X), improver.predict(X))


def test_a_spent_time_limit_returns_the_tree_unchanged():
    X, y = make_classification(200, 5, random_state=5)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = improve_depth(cart, X, y, time_limit=0)
    assert model.get_depth() == cart.get_depth() and len(model.depth_log_) == 1


def test_bad_input_gets_a_clear_error():
    X, y = make_classification(100, 5, random_state=6)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="DecisionTreeClassifier or OptimalTreeClassifier"):
        improve_depth(DepthImprover(), X, y)
    with pytest.raises(ValueError, match="features"):
        improve_depth(cart, X[:, :3], y)
    with pytest.raises(ValueError, match="max_errors"):
        improve_depth(cart, X, y, max_errors=1000)
    with pytest.raises(ValueError, match="classes"):
        improve_depth(cart, X, y + 5)
    with pytest.raises(NotFittedError):
        improve_depth(DecisionTreeClassifier(), X, y)


def test_every_tree_of_a_random_forest_keeps_its_classification():
    """The trees of a random forest are not pure on the rows they are improved on: the
    improved tree must still agree with each of them on every row."""
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(7)
    X = rng.normal(size=(250, 6))
    y = rng.integers(0, 3, 250)
    forest = RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    for tree in forest.estimators_:
        model = improve_depth(tree, X, oracle="dp", time_limit=1.5, sat_timeout=0.5)
        assert np.array_equal(model.predict(X), tree.predict(X))
        assert model.get_depth() <= tree.get_depth()


def test_ctrl_c_in_the_engine_oracle_ends_dt_slim(monkeypatch):
    from odtree._search.solver import Solver

    solve = Solver.solve

    def interrupted(self, *args, **kwargs):
        solution = solve(self, *args, **kwargs)
        solution.status = "interrupted"
        return solution

    monkeypatch.setattr(Solver, "solve", interrupted)
    Xc, yc = make_classification(300, 6, random_state=0)
    cart = DecisionTreeClassifier(random_state=0).fit(Xc, yc)
    model = improve_depth(cart, Xc, yc, oracle="dp", time_limit=60, pilot=False)
    assert [attempt.outcome for attempt in model.slim_log_] == ["interrupted"]
    assert model.fit_time_ < 30 and np.array_equal(model.predict(Xc), cart.predict(Xc))


@pytest.mark.parametrize("seed", range(20))
def test_the_pilot_tree_classifies_every_row(seed):
    X, labels = consistent_instance(seed, n=60, k=8, n_classes=3)
    tree = pilot_tree(X, labels)
    assert np.array_equal(tree.predict(X), labels)
    # a tree not finished in time is given up
    assert pilot_tree(X, labels, deadline=Deadline(0)) is None
    assert best_pilot_tree(X, labels, target=0, deadline=Deadline(0)) is None
    # the first setting may have more time than the others: only its tree is made
    first = best_pilot_tree(X, labels, target=0, deadline=Deadline(0),
                            first_deadline=Deadline(600))
    assert all(map(np.array_equal, first, tree))


@pytest.mark.parametrize("seed", range(5))
def test_the_best_pilot_tree_is_the_shallowest_setting(seed):
    X, labels = consistent_instance(seed, n=80, k=10, n_classes=3)
    depths = [pilot_tree(X, labels, measure=measure, balancing=balancing).depth()
              for measure, balancing in SETTINGS]
    best = best_pilot_tree(X, labels, target=0)
    assert best.depth() == min(depths)
    assert np.array_equal(best.predict(X), labels)
    # the first setting's tree when it already reaches the target
    first = best_pilot_tree(X, labels, target=depths[0])
    assert all(map(np.array_equal, first, pilot_tree(X, labels)))


def test_the_balancing_candidates_split_a_noisy_range_through_the_middle():
    """Labels alternate along one ordered column: its threshold tests sorted as ``x <= t``.
    Gini ranks the tests near the ends first, while the one through the middle divides
    CART's leaves evenly; with it among the candidates, the pilot builds a balanced tree."""
    values = np.repeat(np.arange(32), 4)
    labels = (values // 2) % 2  # 16 alternating runs
    X = (values[:, None] <= np.arange(31)[None, :]).astype(np.uint8)
    rows = np.arange(len(values))
    assert Rollouts(X, labels).balancing_splits(rows, 1)[0] in (14, 15, 16)
    assert pilot_tree(X, labels).depth() == 4  # log2 of the 16 runs
    assert pilot_tree(X, labels, balancing=0).depth() > 4


def test_nodes_above_the_rollout_rows_score_half_the_candidates(monkeypatch):
    """Above ``ROLLOUT_ROWS`` rows, rollouts grow on a sample: half the Gini and balancing
    candidates are scored there, all of them below."""
    monkeypatch.setattr(pilot, "ROLLOUT_ROWS", 100)
    X, labels = consistent_instance(0, n=200, k=40, n_classes=2)
    scored = {}
    split_score = Rollouts.split_score

    def counted(self, rows, column, score):
        scored.setdefault(rows.tobytes(), set()).add(column)
        return split_score(self, rows, column, score)

    monkeypatch.setattr(Rollouts, "split_score", counted)
    pilot_tree(X, labels)
    sizes = {len(np.frombuffer(rows, dtype=np.int64)): len(columns)
             for rows, columns in scored.items()}
    assert sizes[200] <= pilot.CANDIDATES // 2 + pilot.BALANCING // 2
    assert max(count for size, count in sizes.items() if size <= 100) > \
        pilot.CANDIDATES // 2 + pilot.BALANCING // 2


@pytest.mark.parametrize("seed", range(5))
def test_chains_nest_and_cover_every_column(seed):
    """The threshold columns of three numeric columns, shuffled, with a few random 0/1 columns:
    every chain nests on every row, the thresholds of one numeric column make one chain, and
    each chain's ordinal column counts the row's ones in it."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 12, size=(300, 3))
    thresholds = [(values[:, j] <= t) for j in range(3) for t in range(11)]
    noise = [rng.random(300) < 0.5 for _ in range(4)]
    X = np.array(thresholds + noise, dtype=np.uint8).T
    order = rng.permutation(X.shape[1])
    X = X[:, order]
    chain, chains = _chains(X.T.copy())
    assert sorted(np.concatenate(chains)) == list(range(X.shape[1]))
    for j, columns in enumerate(chains):
        assert np.all(chain[columns] == j)
        assert np.all(np.diff(X[:, columns].astype(int), axis=1) >= 0)  # each within the next
    for numeric in range(3):
        own = np.flatnonzero((order >= 11 * numeric) & (order < 11 * numeric + 11))
        assert len(set(chain[own])) == 1
    rollouts = Rollouts(X, np.zeros(300, dtype=int))
    for j, columns in enumerate(chains):
        assert np.array_equal(rollouts.ordinal[:, j], X[:, columns].sum(axis=1))


def test_chains_are_cut_where_rows_outside_the_sample_break_them(monkeypatch):
    """Chains are found on a sample of the rows; a row outside it that breaks the nesting
    cuts the chain there."""
    monkeypatch.setattr(pilot, "CHAIN_ROWS", 4)
    X = np.array([[0, 1], [0, 1], [0, 1], [0, 1], [1, 1], [0, 0], [1, 1], [1, 0]],
                 dtype=np.uint8)
    assert _chains(X[:5].T.copy())[0].tolist() == [0, 0]  # the sample is rows 0, 2 and 4
    assert _chains(X.T.copy())[0].tolist() == [0, 1]  # row 7 has column 0 without column 1


def test_the_pilot_beats_cart_where_cart_peels():
    """On noisy data CART grows a deep tree to purity; the pilot's whole tree is shallower
    and is kept first."""
    # 300 rows: the pilot's first setting takes ~1.4 s on a loaded machine, within its
    # quarter of the 12 s
    X, y = make_classification(300, 8, n_informative=6, flip_y=0.05, random_state=3)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = improve_depth(cart, X, y, oracle="dp", time_limit=12, sat_timeout=1)
    assert np.array_equal(model.predict(X), cart.predict(X))
    assert model.oracle_wins_["pilot"] >= 1
    whole = model.slim_log_[0]  # the pilot's whole tree comes first
    assert whole.oracle == "pilot" and whole.outcome == "sat"
    assert whole.depth_after < whole.depth_before == cart.get_depth()


def test_the_whole_tree_gets_the_shallowest_pilot_setting(monkeypatch):
    import odtree.slim._slimmer as slim

    targets = []

    def recorded(X, labels, *, target, deadline, first_deadline):
        targets.append(target)
        assert first_deadline is None or deadline.end is None \
            or first_deadline.end >= deadline.end
        return best_pilot_tree(X, labels, target=target, deadline=deadline,
                               first_deadline=first_deadline)

    monkeypatch.setattr(slim, "best_pilot_tree", recorded)
    X, y = make_classification(300, 6, flip_y=0.05, random_state=3)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = improve_depth(cart, X, y, oracle="dp", time_limit=5, sat_timeout=1)
    assert targets[0] == 0  # the whole tree: every setting that finishes in time
    local_calls = [a.depth_before - 1 for a in model.slim_log_ if a.oracle == "pilot"][1:]
    assert targets[1:] == local_calls  # then each local call: one level lower


def test_ctrl_c_in_the_pilot_ends_dt_slim(monkeypatch):
    import odtree.slim._slimmer as slim

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(slim, "best_pilot_tree", interrupted)
    Xc, yc = make_classification(300, 6, random_state=0)
    cart = DecisionTreeClassifier(random_state=0).fit(Xc, yc)
    model = improve_depth(cart, Xc, yc, time_limit=60)
    assert [attempt.outcome for attempt in model.slim_log_] == ["interrupted"]
    assert model.fit_time_ < 30 and np.array_equal(model.predict(Xc), cart.predict(Xc))



def test_ctrl_c_in_the_sat_oracle_ends_dt_slim_with_the_tree_so_far(monkeypatch):
    import odtree._search.interrupts as interrupts
    import odtree.slim._sat as sat

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(sat, "_decide", interrupted)
    # a first Ctrl-C (another test's may be within the window of a second)
    monkeypatch.setattr(interrupts, "_last_interrupt", [float("-inf")])
    Xc, yc = make_classification(300, 6, random_state=0)
    cart = DecisionTreeClassifier(random_state=0).fit(Xc, yc)
    model = improve_depth(cart, Xc, yc, oracle="sat", pilot=False, time_limit=60)
    assert [attempt.outcome for attempt in model.slim_log_] == ["interrupted"]
    assert model.fit_time_ < 30 and np.array_equal(model.predict(Xc), cart.predict(Xc))


@pytest.mark.parametrize("verdict", ["timeout", "unsat"])
def test_time_left_goes_to_another_pass_only_after_a_timeout(monkeypatch, verdict):
    """When every node has been tried, a call that ran out of time earns another pass with
    twice the time per call; proofs alone end the run."""
    import odtree.slim._slimmer as slim

    limits = []

    def oracle(X, labels, target, time_limit, **kwargs):
        limits.append(time_limit)
        return slim.DepthSearch(None, verdict, 0)

    monkeypatch.setattr(slim, "dp_min_depth", oracle)
    X, y = make_classification(60, 6, n_informative=4, random_state=1)
    cart = DecisionTreeClassifier(random_state=0).fit(X, y)
    model = improve_depth(cart, X, y, oracle="dp", pilot=False, time_limit=4,
                          sat_timeout=0.05)
    assert np.array_equal(model.predict(X), cart.predict(X))
    local = limits[1:]  # after the whole tree's call
    assert local and all(limit <= 0.05 for limit in local[:1])
    if verdict == "timeout":
        assert max(local) >= 0.1 and model.fit_time_ >= 3.5
    else:
        assert max(local) <= 0.05 and model.fit_time_ < 3.5


@pytest.mark.parametrize("wrong", [{"oracle": "nope"}, {"random_state": "abc"},
                                   {"time_limit": -1}, {"sat_timeout": -5},
                                   {"max_errors": -1}])
def test_improve_depth_names_a_bad_parameter(wrong):
    X, y = load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=next(iter(wrong))):
        improve_depth(tree, X, **wrong)
