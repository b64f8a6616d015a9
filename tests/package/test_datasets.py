"""Benchmark files from the shared data directory, and the bundled default data."""

import re
from pathlib import Path

import numpy as np
import pytest
from odtree.datasets import (
    ENV_VAR,
    list_benchmarks,
    list_continuous,
    load_benchmark,
    load_continuous,
    load_default,
    read_benchmark_file,
)

DATA_DIR = Path(__file__).resolve().parents[3] / "shared" / "datasets"


@pytest.fixture(autouse=True)
def benchmark_env(monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(DATA_DIR))
    return DATA_DIR


def readme_table():
    """``{name: (rows, features, classes)}`` from the data directory's README."""
    rows = re.findall(r"^\| `(.+)\.txt` \| (\d+) \| (\d+) \| (\d+) \|$",
                      (DATA_DIR / "README.md").read_text().split("## Files")[1], flags=re.M)
    return {name: tuple(map(int, numbers)) for name, *numbers in rows}


@pytest.mark.parametrize(("name", "shape", "n_classes"), [
    ("anneal", (812, 93), 2),
    ("yeast.txt", (1484, 89), 2),  # CRLF line endings
    ("zoo-1", (101, 36), 2),
    ("nina/corral-un_converted", (160, 6), 2),
    ("nina/new-throid-un", (215, 334), 3),
    ("nina/reduced/mux6-un-reduced_converted.txt", (128, 6), 2),
])
def test_load_benchmark_shapes(name, shape, n_classes):
    X, y = load_benchmark(name)
    assert X.shape == shape and y.shape == (shape[0],)
    assert X.dtype == np.uint8 and y.dtype == np.int64
    assert set(np.unique(X)) <= {0, 1}
    assert np.unique(y).tolist() == list(range(n_classes))


def test_every_listed_benchmark_matches_the_readme():
    table = readme_table()
    names = list_benchmarks()
    assert sorted(names) == sorted(table)
    for name in names:
        X, y = load_benchmark(name)
        rows, features, classes = table[name]
        assert (X.shape, len(np.unique(y))) == ((rows, features), classes), name


def test_list_benchmarks_orders_top_level_first_and_skips_licences():
    names = list_benchmarks()
    assert names[0] == "anneal"
    assert names.index("zoo-1") < names.index("nina/appendicitis-un_converted")
    assert names.index("nina/spect-un_converted") < names.index(
        "nina/reduced/appendicitis-un-reduced_converted")
    assert not [name for name in names if "LICENSE" in name.upper()]


def test_data_dir_argument_wins_over_the_environment(monkeypatch, tmp_path):
    (tmp_path / "tiny.txt").write_text("1 0 1\n0 1 1\n")
    monkeypatch.setenv(ENV_VAR, str(tmp_path))
    assert list_benchmarks() == ["tiny"]
    assert list_benchmarks(DATA_DIR) != ["tiny"]
    assert load_benchmark("anneal", data_dir=DATA_DIR)[0].shape == (812, 93)


def test_unset_variable_reads_the_folder_beside_the_repository(monkeypatch):
    """The README's test command passes on a fresh clone without ODTREE_DATA: run from the
    repository's root, the benchmarks are found in ../shared/datasets."""
    monkeypatch.delenv(ENV_VAR)
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert load_benchmark("anneal")[0].shape == (812, 93)
    assert "anneal" in list_benchmarks()


def test_unset_variable_is_named_in_the_error(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_VAR)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=ENV_VAR):
        load_benchmark("anneal")
    with pytest.raises(FileNotFoundError, match=ENV_VAR):
        list_benchmarks()


def test_missing_directory_and_file(monkeypatch, tmp_path):
    with pytest.raises(FileNotFoundError, match="close names: anneal"):
        load_benchmark("aneal")
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match=f"nowhere.*from {ENV_VAR}"):
        load_benchmark("anneal")


@pytest.mark.parametrize("name", ["../datasets/anneal", "/etc/passwd", "", "nina\\corral"])
def test_names_must_stay_inside_the_directory(name):
    with pytest.raises(ValueError, match="relative path"):
        load_benchmark(name)


@pytest.mark.parametrize(("content", "message"), [
    (b"", "no rows"),
    (b"1 0 1\n0 1\n", "equal rows"),
    (b"1 0 x\n", "equal rows"),
    (b"1 0 1\n0 2 1\n", "line 2 has 2 in feature column 0"),
])
def test_read_benchmark_file_rejects_malformed_files(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        read_benchmark_file(path)


def test_read_benchmark_file_handles_crlf_and_a_single_row(tmp_path):
    path = tmp_path / "one.txt"
    path.write_bytes(b"2 1 0 1\r\n")
    X, y = read_benchmark_file(str(path))
    assert X.tolist() == [[1, 0, 1]] and y.tolist() == [2]


def test_load_default_arrays():
    X, y, names = load_default()
    assert X.shape == (569, 30) and X.dtype == np.float64
    assert y.shape == (569,) and set(y.tolist()) == {0, 1}
    assert len(names) == 30 and names[0] == "mean radius"


def test_load_default_frame():
    pytest.importorskip("pandas")
    X, y, names = load_default(as_frame=True)
    assert X.shape == (569, 30) and list(X.columns) == names
    assert y.tolist() == load_default()[1].tolist()


def continuous_table():
    """``{name: (rows, features, classes)}`` of the continuous sets, from the README."""
    section = (DATA_DIR / "README.md").read_text().split("## Files")[0]
    rows = re.findall(r"^\| `(.+)\.txt` \| (\d+) \| (\d+) \| (\d+) \|$", section, flags=re.M)
    return {name: tuple(map(int, numbers)) for name, *numbers in rows}


def test_every_continuous_set_matches_the_readme():
    table = continuous_table()
    assert list_continuous() == sorted(table) and len(table) == 9
    for name in table:
        X, y = load_continuous(name)
        rows, features, classes = table[name]
        assert X.dtype == np.float64 and y.dtype == np.int64
        assert (X.shape, len(np.unique(y))) == ((rows, features), classes), name
        assert X.min() >= 0 and X.max() <= 1


def test_continuous_names_and_errors(tmp_path):
    assert load_continuous("bank.txt")[0].shape == (1372, 4)
    with pytest.raises(FileNotFoundError, match="close names: bank"):
        load_continuous("bnak")
    with pytest.raises(ValueError, match="file name"):
        load_continuous("../anneal")
    (tmp_path / "continuous").mkdir()
    (tmp_path / "continuous" / "odd.txt").write_text("0.5 0.1\n1 0.2\n")
    with pytest.raises(ValueError, match="integers"):
        load_continuous("odd", data_dir=tmp_path)
