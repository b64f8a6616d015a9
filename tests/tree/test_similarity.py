"""Distribution similarity (thesis §8.2.1): ``OptimalTreeClusterer`` splits on ``X``
and measures the distances to the leaf centroids on separate vectors, ``fit(X, X_error=...)``."""

import itertools
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from odtree import OptimalTreeClusterer, from_json, to_json
from scipy import sparse
from sklearn.base import clone


def leaf_cost(vectors, weight, rows) -> float:
    """Σ w ‖v − c‖ over the rows, c their weighted centroid: the core's centroid objective."""
    if len(rows) == 0:
        return 0.0
    centre = np.average(vectors[rows], axis=0, weights=weight[rows])
    return float(np.sum(weight[rows] * np.linalg.norm(vectors[rows] - centre, axis=1)))


def brute_force(binary, vectors, weight, depth, rows=None) -> float:
    """The least cost over every tree of depth ≤ ``depth`` that tests the 0/1 columns of
    ``binary``, each leaf holding at least one row."""
    if rows is None:
        rows = np.flatnonzero(weight > 0)
    best = leaf_cost(vectors, weight, rows)
    if depth == 0:
        return best
    for feature in range(binary.shape[1]):
        ones = rows[binary[rows, feature] == 1]
        zeros = rows[binary[rows, feature] == 0]
        if len(ones) and len(zeros):
            best = min(best, brute_force(binary, vectors, weight, depth - 1, zeros)
                       + brute_force(binary, vectors, weight, depth - 1, ones))
    return best


def all_tree_costs(binary, vectors, weight, rows, depth):
    """The cost of every tree of depth ≤ ``depth`` (explicit enumeration, for tiny data)."""
    yield leaf_cost(vectors, weight, rows)
    if depth == 0:
        return
    for feature in range(binary.shape[1]):
        ones = rows[binary[rows, feature] == 1]
        zeros = rows[binary[rows, feature] == 0]
        if len(ones) and len(zeros):
            for left, right in itertools.product(
                    list(all_tree_costs(binary, vectors, weight, zeros, depth - 1)),
                    list(all_tree_costs(binary, vectors, weight, ones, depth - 1))):
                yield left + right


def tiny_problem(seed):
    """A few binary features, distribution vectors (rows summing to 1) and weights."""
    rng = np.random.default_rng(seed)
    n_rows = int(rng.integers(1, 13))
    X = rng.integers(0, 2, size=(n_rows, int(rng.integers(1, 4))))
    vectors = rng.dirichlet(np.ones(int(rng.integers(1, 5))), size=n_rows)
    weight = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0], size=n_rows)
    if not weight.any():
        weight[0] = 1.0
    return X, vectors, weight


@pytest.mark.parametrize("seed", range(60))
def test_matches_every_tree_of_depth_at_most_two(seed):
    X, vectors, weight = tiny_problem(seed)
    depth = seed % 3
    model = OptimalTreeClusterer(max_depth=depth).fit(X, sample_weight=weight,
                                                      X_error=vectors)
    # splits test the binarized columns of the rows that count; the oracle splits on them too
    kept = np.flatnonzero(weight > 0)
    binary = np.zeros((len(weight), len(model.binary_features_)), dtype=np.int64)
    binary[kept] = model.binarizer_.transform(X[kept])
    expected = brute_force(binary, vectors, weight, depth)
    assert model.optimal_
    assert model.objective_ == pytest.approx(expected, rel=1e-9, abs=1e-12)
    if len(kept) <= 8:
        assert expected == pytest.approx(min(all_tree_costs(binary, vectors, weight, kept,
                                                             depth)), abs=1e-12)
    # the fitted clusters are the leaves, with their centroids in the vectors' space
    labels = model.labels_[kept]
    assert model.cluster_centers_.shape == (model.get_n_leaves(), vectors.shape[1])
    assert set(labels) == set(range(model.get_n_leaves()))
    np.testing.assert_array_equal(model.predict(X[kept]), labels)
    for cluster, center in enumerate(model.cluster_centers_):
        rows = kept[labels == cluster]
        np.testing.assert_allclose(center, np.average(vectors[rows], axis=0,
                                                      weights=weight[rows]))
    cost = sum(leaf_cost(vectors, weight, kept[labels == c]) for c in range(model.get_n_leaves()))
    assert cost == pytest.approx(model.objective_, rel=1e-9, abs=1e-12)


def test_the_vectors_need_not_sum_to_one_and_may_be_one_number_per_row():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    target = np.array([1.0, 2.0, 10.0, 12.0])
    column = OptimalTreeClusterer(max_depth=1).fit(X, X_error=target[:, None])
    flat = OptimalTreeClusterer(max_depth=1).fit(X, X_error=target)
    assert flat.objective_ == column.objective_ == pytest.approx(1.0 + 2.0)
    np.testing.assert_array_equal(flat.cluster_centers_, [[1.5], [11.0]])
    np.testing.assert_array_equal(flat.labels_, column.labels_)
    as_sparse = OptimalTreeClusterer(max_depth=1).fit(X, X_error=sparse.csr_matrix(target[:, None]))
    assert as_sparse.objective_ == flat.objective_


@pytest.mark.parametrize("seed", range(5))
def test_x_as_its_own_vectors_is_the_plain_clusterer(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    weight = rng.integers(0, 3, size=30).astype(float)
    plain = OptimalTreeClusterer(max_depth=2, n_clusters=3).fit(X, sample_weight=weight)
    both = OptimalTreeClusterer(max_depth=2, n_clusters=3).fit(X, sample_weight=weight,
                                                               X_error=X)
    assert both.objective_ == plain.objective_
    np.testing.assert_array_equal(both.labels_, plain.labels_)
    np.testing.assert_array_equal(both.cluster_centers_, plain.cluster_centers_)
    np.testing.assert_array_equal(both.predict(X), plain.predict(X))
    assert both.tree_.to_dict() == plain.tree_.to_dict()


def test_integer_weights_count_like_repeated_rows():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(12, 3))
    vectors = rng.dirichlet(np.ones(3), size=12)
    weight = rng.integers(1, 4, size=12)
    weighted = OptimalTreeClusterer(max_depth=2).fit(X, sample_weight=weight, X_error=vectors)
    repeated = OptimalTreeClusterer(max_depth=2).fit(np.repeat(X, weight, axis=0),
                                                     X_error=np.repeat(vectors, weight, axis=0))
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-12)
    np.testing.assert_allclose(np.sort(weighted.cluster_centers_, axis=0),
                               np.sort(repeated.cluster_centers_, axis=0))


def test_rows_of_weight_zero_are_left_out():
    X = np.array([[0], [0], [1], [1], [1]])
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [9.0, 9.0]])
    model = OptimalTreeClusterer(max_depth=1).fit(X, sample_weight=[1, 1, 1, 1, 0],
                                                  X_error=vectors)
    assert model.objective_ == 0.0
    assert model.labels_.tolist() == [0, 0, 1, 1, -1]
    np.testing.assert_array_equal(model.cluster_centers_, [[1.0, 0.0], [0.0, 1.0]])


def test_pickle_json_clone_and_fit_predict():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, size=(20, 2))
    vectors = rng.dirichlet(np.ones(4), size=20)
    model = OptimalTreeClusterer(max_depth=2).fit(X, X_error=vectors)
    assert model.cluster_centers_.shape[1] == 4 != model.n_features_in_
    for copy in (pickle.loads(pickle.dumps(model)), from_json(to_json(model))):
        np.testing.assert_array_equal(copy.predict(X), model.predict(X))
        np.testing.assert_array_equal(copy.labels_, model.labels_)
        np.testing.assert_array_equal(copy.cluster_centers_, model.cluster_centers_)
        assert copy.objective_ == model.objective_
    np.testing.assert_array_equal(clone(model).fit_predict(X, X_error=vectors), model.labels_)
    assert "X_error" not in model.get_params()


def test_json_centers_of_the_wrong_length_are_refused():
    X = np.array([[0], [1]])
    model = OptimalTreeClusterer(max_depth=1).fit(X, X_error=[[0.0, 1.0], [1.0, 0.0]])
    text = to_json(model)
    with pytest.raises(ValueError, match="centers must be 2 rows of 3"):
        from_json(text.replace('"dim": 2', '"dim": 3'))


def test_the_split_features_may_be_categorical():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"region": ["north", "north", "south", "south"],
                          "urban": [1, 0, 1, 0]})
    vectors = np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.9], [0.2, 0.8]])
    model = OptimalTreeClusterer(max_depth=1).fit(frame, X_error=vectors)
    assert model.labels_[0] == model.labels_[1] != model.labels_[2] == model.labels_[3]
    assert model.objective_ == pytest.approx(4 * np.hypot(0.05, 0.05))


@pytest.mark.parametrize(("vectors", "message"), [
    (np.ones((3, 2)), "X_error has 3 rows but X has 4"),
    (np.ones(5), "X_error has 5 rows but X has 4"),
    (np.array([[0.5, 0.5], [np.nan, 1.0], [0.5, 0.5], [0.5, 0.5]]), "row 1"),
    (np.array([[0.5, 0.5], [0.5, 0.5], [0.5, np.inf], [0.5, 0.5]]), "NaN or infinity"),
    (np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [-np.inf, 0.5]]), "must be finite"),
    (np.array([["a", "b"]] * 4), "must hold numbers"),
    (np.ones((4, 0)), "at least one column"),
    (np.ones((4, 2, 2)), "2-D array"),
])
def test_bad_vectors_are_refused(vectors, message):
    X = np.array([[0], [0], [1], [1]])
    with pytest.raises(ValueError, match=message):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=vectors)


def test_vectors_given_as_y_are_pointed_to_x_error():
    X = np.array([[0], [0], [1], [1]])
    with pytest.raises(ValueError, match="X_error="):
        OptimalTreeClusterer(max_depth=1).fit(X, np.ones((4, 2)))
    # a 1-D y stays ignored, as scikit-learn's clusterers do
    OptimalTreeClusterer(max_depth=1).fit(X, np.arange(4))


def test_the_overflowing_vectors_are_refused():
    X = np.array([[0], [1]])
    with pytest.raises(ValueError, match="rescale"):
        OptimalTreeClusterer(max_depth=1).fit(X, X_error=[[1e308], [-1e308]])


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide.md"


def guide_section() -> tuple:
    """The Python code and the printed output of the guide's distribution-similarity section."""
    text = GUIDE.read_text(encoding="utf-8")
    section = re.search(r"^## Distribution similarity.*?(?=^## )", text, re.S | re.M)
    assert section, "docs/guide.md lost its section on distribution similarity"
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", section.group(0), re.S | re.M)
    assert [language for language, _ in blocks] == ["python", ""]
    return blocks[0][1], blocks[1][1]


def test_guide_example():
    """Runs the code of docs/guide.md, section "Distribution similarity", and checks what the
    guide says it prints and shows."""
    pytest.importorskip("pandas")
    code, output = guide_section()
    names = {}
    exec(compile(code, str(GUIDE), "exec"), names)  # noqa: S102 - our own guide
    model, text, centers, clusters = (names[k] for k in ("model", "text", "centers",
                                                         "clusters"))
    assert output == f"{text}\n{centers}\n"
    assert "urban" in text and "industrial" in text
    assert "high_income" not in text and "many_students" not in text
    assert sorted(clusters.tolist()) == [0, 1, 2, 3]
    expected = [[0.55, 0.15, 0.30], [0.80, 0.15, 0.05], [0.40, 0.30, 0.30], [0.65, 0.30, 0.05]]
    np.testing.assert_allclose(centers.to_numpy(), expected, atol=0.03)
    assert model.optimal_
