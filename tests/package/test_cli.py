"""The odtree command: version, argument errors (exit 2, no traceback), progress, fitting."""

import io
import json
import os
import shlex
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import odtree
import odtree.datasets
import pandas as pd
import pytest
from conftest import data_path
from odtree.cli import _with_progress, main

DATA_DIR = data_path()


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"odtree {odtree.__version__}"


def test_no_command_prints_help_and_fails(capsys):
    code, _, err = run(capsys)
    assert code == 2 and "fit" in err and "demo" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["fit"], "required: FILE"),
    (["fit", "missing.txt"], "missing.txt: no such file"),
    (["fit", str(DATA_DIR / "anneal.txt"), "--format", "xml"], "invalid choice"),
    (["fit", str(DATA_DIR / "anneal.txt"), "--max-depth", "three"], "invalid int"),
    (["fit", str(DATA_DIR / "anneal.txt"), "--target", "class"], "CSV files only"),
    (["fit", str(DATA_DIR / "README.md")], "not a benchmark file"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_exits_with_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and message in err


def test_csv_needs_an_existing_target_column(capsys, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age,label\n30,yes\n40,no\n")
    code, _, err = run(capsys, "fit", str(path))
    assert code == 2 and "--target" in err
    code, _, err = run(capsys, "fit", str(path), "--target", "class")
    assert code == 2 and "no column 'class'" in err and "age, label" in err
    (tmp_path / "empty.csv").write_text("")
    code, _, err = run(capsys, "fit", str(tmp_path / "empty.csv"), "--target", "label")
    assert code == 2 and "cannot read" in err


def test_progress_line_is_written_then_erased():
    stream = io.StringIO()
    assert _with_progress(lambda: time.sleep(0.35) or 42, stream, interval=0.1) == 42
    text = stream.getvalue()
    assert text.count("\rsearching... ") >= 2
    last = text.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""  # ends by blanking the line


def test_progress_is_silent_for_quick_tasks_and_passes_errors_on():
    stream = io.StringIO()
    assert _with_progress(lambda: "done", stream, interval=10) == "done"
    assert stream.getvalue() == ""
    with pytest.raises(ZeroDivisionError):
        _with_progress(lambda: 1 / 0, stream, interval=10)


@pytest.fixture
def fitted_cli():
    pytest.importorskip("odtree._core")


@pytest.mark.usefixtures("fitted_cli")
def test_fit_benchmark_file_prints_text_and_a_summary(capsys):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "zoo-1.txt"), "--max-depth", "2")
    assert code == 0 and out.splitlines()[1].startswith("|--- ") and "class: " in out
    assert "objective" in err and "status optimal" in err


@pytest.mark.usefixtures("fitted_cli")
def test_fit_json_and_dot_formats(capsys):
    path = str(DATA_DIR / "nina" / "corral-un_converted.txt")
    code, out, _ = run(capsys, "fit", path, "--format", "json", "--no-progress")
    assert code == 0 and json.loads(out)["format"] == "odtree-model"
    code, out, _ = run(capsys, "fit", path, "--format", "dot", "--time-limit", "10")
    assert code == 0 and out.startswith("digraph Tree {")


@pytest.mark.usefixtures("fitted_cli")
def test_fit_csv_and_progress(capsys, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age,colour,label\n" + "".join(
        f"{age},{colour},{'yes' if age > 40 else 'no'}\n"
        for age in range(20, 60, 3) for colour in ("red", "blue")))
    code, out, _ = run(capsys, "fit", str(path), "--target", "label", "--progress")
    assert code == 0 and "age <= " in out


@pytest.mark.usefixtures("fitted_cli")
def test_time_limit_warning_is_one_clean_line(capsys):
    path = str(DATA_DIR / "splice-1.txt")
    code, out, err = run(capsys, "fit", path, "--max-depth", "5", "--time-limit", "0.3")
    assert code == 0 and out.splitlines()[1].startswith("|--- ")
    assert "odtree: warning: time limit of 0.3 s reached" in err
    assert "status time_limit, optimal False" in err


@pytest.mark.usefixtures("fitted_cli")
def test_parameters_the_estimator_rejects_exit_with_2(capsys):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "zoo-1.txt"), "--max-depth", "-1")
    assert code == 2 and out == "" and "--max-depth must be" in err


@pytest.mark.usefixtures("fitted_cli")
def test_demo(capsys):
    code, out, _ = run(capsys, "demo", "--no-progress")
    assert code == 0 and "class: benign" in out and "training accuracy: 0.9" in out


@pytest.mark.usefixtures("fitted_cli")
def test_verbose_prints_the_progress_on_stderr(capsys):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "zoo-1.txt"), "--max-depth", "2", "-v")
    assert code == 0 and out.splitlines()[1].startswith("|--- ")
    assert "objective" in err and "gap" in err and "(end)" in err


def _csv(path, rows, seed=0):
    """A CSV of ``rows`` rows: two numeric columns and a yes/no label that the age decides."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, rows)
    income = rng.normal(50, 10, rows).round(2)
    label = np.where(age > 40, "yes", "no")
    path.write_text("age,income,label\n" + "".join(
        f"{a},{i},{lab}\n" for a, i, lab in zip(age, income, label, strict=True)))
    return path


def _saved_params(capsys, *argv):
    code, out, _ = run(capsys, "fit", *argv, "--format", "json", "--no-progress")
    assert code == 0
    return json.loads(out)


@pytest.mark.usefixtures("fitted_cli")
@pytest.mark.parametrize(("option", "value", "param", "expected"), [
    ("--ccp-alpha", "0.01", "ccp_alpha", 0.01),
    ("--max-leaf-nodes", "3", "max_leaf_nodes", 3),
    ("--min-samples-leaf", "5", "min_samples_leaf", 5),
    ("--thresholds", "midpoints", "thresholds", "midpoints"),
    ("--n-thresholds", "4", "n_thresholds", 4),
    ("--memory-limit", "500MB", "memory_limit", "500MB"),
    ("--memory-limit", "100000000", "memory_limit", 100_000_000),
    ("--time-limit", "30", "time_limit", 30.0),
    ("--max-depth", "2", "max_depth", 2),
])
def test_each_search_option_reaches_the_estimator(capsys, tmp_path, option, value, param,
                                                  expected):
    path = _csv(tmp_path / "data.csv", 60)
    saved = _saved_params(capsys, str(path), "--target", "label", option, value)
    assert saved["estimator"] == "OptimalTreeClassifier"
    assert saved["params"][param] == expected


@pytest.mark.usefixtures("fitted_cli")
def test_max_leaf_nodes_limits_the_tree(capsys):
    saved = _saved_params(capsys, str(DATA_DIR / "zoo-1.txt"), "--max-leaf-nodes", "2")
    model = odtree.from_json(json.dumps(saved))
    assert model.get_n_leaves() <= 2


@pytest.mark.usefixtures("fitted_cli")
def test_regression_task_fits_a_regressor(capsys, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("x,y\n" + "".join(f"{x},{2.5 if x > 4 else -1.0}\n" for x in range(10)))
    saved = _saved_params(capsys, str(path), "--target", "y", "--task", "regression")
    assert saved["estimator"] == "OptimalTreeRegressor"
    model = odtree.from_json(json.dumps(saved))
    assert model.predict(pd.DataFrame({"x": [0.0, 9.0]})).tolist() == [-1.0, 2.5]
    code, out, err = run(capsys, "fit", str(path), "--target", "y", "--task", "regression")
    assert code == 0 and "value: 2.50" in out and "status optimal" in err


@pytest.mark.usefixtures("fitted_cli")
def test_verbose_with_the_new_options(capsys):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "zoo-1.txt"), "--max-depth", "2",
                         "--ccp-alpha", "0.01", "--max-leaf-nodes", "3", "--verbose")
    assert code == 0 and out.splitlines()[1].startswith("|--- ") and "(end)" in err


@pytest.mark.usefixtures("fitted_cli")
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_predict_round_trip_equals_model_predict(capsys, tmp_path, task):
    data = str(DATA_DIR / "zoo-1.txt")
    saved = _saved_params(capsys, data, "--task", task, "--max-depth", "2")
    model_path = tmp_path / "model.json"
    model_path.write_text(json.dumps(saved))
    X, _ = odtree.datasets.read_benchmark_file(data)
    expected = [str(value) for value in odtree.from_json(model_path.read_text()).predict(X)]
    code, out, err = run(capsys, "predict", str(model_path), data)
    assert code == 0 and err == "" and out.splitlines() == expected
    output = tmp_path / "predictions.txt"
    code, out, _ = run(capsys, "predict", str(model_path), data, "--output", str(output))
    assert code == 0 and out == "" and output.read_text().splitlines() == expected


@pytest.mark.usefixtures("fitted_cli")
def test_predict_csv_matches_columns_by_name(capsys, tmp_path):
    train = _csv(tmp_path / "train.csv", 80)
    model_path = tmp_path / "model.json"
    model_path.write_text(json.dumps(_saved_params(capsys, str(train), "--target", "label")))
    model = odtree.from_json(model_path.read_text())
    new = tmp_path / "new.csv"  # columns reordered, no label
    new.write_text("income,age\n50.0,30\n40.0,70\n")
    code, out, _ = run(capsys, "predict", str(model_path), str(new))
    assert code == 0 and out.splitlines() == ["no", "yes"]
    code, out, _ = run(capsys, "predict", str(model_path), str(train))  # the label is ignored
    frame = pd.read_csv(train)
    assert code == 0 and out.splitlines() == list(model.predict(frame[["age", "income"]]))


@pytest.mark.usefixtures("fitted_cli")
def test_predict_bad_input_exits_with_2(capsys, tmp_path):
    train = _csv(tmp_path / "train.csv", 40)
    model_path = tmp_path / "model.json"
    model_path.write_text(json.dumps(_saved_params(capsys, str(train), "--target", "label")))
    (tmp_path / "other.csv").write_text("height\n3\n")
    (tmp_path / "junk.json").write_text("{not json")
    cases = [
        ([str(tmp_path / "junk.json"), str(train)], "not a saved odtree model"),
        ([str(tmp_path / "missing.json"), str(train)], "missing.json: no such file"),
        ([str(model_path), str(tmp_path / "other.csv")], "lacks the model's column(s) age"),
        ([str(model_path), str(DATA_DIR / "zoo-1.txt")], "cannot predict"),
        ([str(model_path), str(train), "--target", "nope"], "has no column 'nope'"),
        ([str(model_path), str(train), "--target", "age"], "lacks the model's column(s) age"),
        ([str(model_path), str(DATA_DIR / "README.md")], "not a benchmark file"),
        ([str(model_path), str(train), "--output", str(tmp_path / "no" / "x")], "cannot write"),
    ]
    for argv, message in cases:
        code, out, err = run(capsys, "predict", *argv)
        assert code == 2 and out == "" and message in err, (argv, err)


def _shell(command):
    """Run ``command`` in a shell, with ``odtree`` meaning this odtree's command line."""
    env = dict(os.environ)
    package_root = str(Path(odtree.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    odtree_command = f"{shlex.quote(sys.executable)} -m odtree.cli"
    return subprocess.run(command.replace("odtree ", odtree_command + " ", 1), shell=True,
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.usefixtures("fitted_cli")
def test_a_closed_pipe_ends_quietly(capsys, tmp_path):
    train = _csv(tmp_path / "train.csv", 200)
    big = _csv(tmp_path / "big.csv", 200_000, seed=1)  # far more output than a pipe holds
    model_path = tmp_path / "model.json"
    model_path.write_text(json.dumps(_saved_params(capsys, str(train), "--target", "label")))
    status = tmp_path / "status"
    done = _shell(f"{{ odtree predict {model_path} {big}; echo $? > {status}; }} | head -1")
    assert done.stderr == ""
    assert done.stdout in ("yes\n", "no\n")
    assert status.read_text().strip() in ("0", "141")


@pytest.mark.usefixtures("fitted_cli")
def test_a_closed_pipe_after_fit_ends_quietly():
    done = _shell(f"odtree fit {DATA_DIR / 'mushroom.txt'} --max-depth 2 --format json "
                  "--no-progress | head -1")
    assert done.stderr == "" and done.stdout == "{\n"


def test_missing_values_without_the_missing_flag_name_the_flag(capsys, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age,income,label\n30,,yes\n40,2.5,no\n50,3.5,yes\n")
    code, out, err = run(capsys, "fit", str(path), "--target", "label")
    assert code == 2 and out == ""
    assert "--missing split" in err and "missing=" not in err
    code, _, err = run(capsys, "fit", str(path), "--target", "label", "--missing", "split")
    assert code == 0, err


def test_a_continuous_target_suggests_the_regression_task(capsys, tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=40)})
    frame["y"] = 2 * frame["x"] + rng.normal(size=40)
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    code, out, err = run(capsys, "fit", str(path), "--target", "y")
    assert code == 2 and out == ""
    assert "--task regression" in err and "Unknown label type" not in err
    code, _, err = run(capsys, "fit", str(path), "--target", "y", "--task", "regression")
    assert code == 0, err


@pytest.mark.parametrize(("flag", "value"), [
    ("--min-samples-leaf", "0"), ("--ccp-alpha", "-1"), ("--n-thresholds", "0"),
    ("--time-limit", "-1"), ("--memory-limit", "5XB"), ("--max-leaf-nodes", "0"),
    ("--max-depth", "-1"),
])
def test_a_rejected_setting_is_named_by_its_flag(capsys, flag, value):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "anneal.txt"), flag, value)
    assert code == 2 and out == ""
    assert f"{flag} " in err and flag[2:].replace("-", "_") not in err


def test_missing_values_in_predict_advise_fitting_with_the_flag(capsys, tmp_path):
    train, rows, model = tmp_path / "train.csv", tmp_path / "rows.csv", tmp_path / "model.json"
    train.write_text("age,income,label\n30,1.5,yes\n40,2.5,no\n50,3.5,yes\n")
    rows.write_text("age,income\n30,\n")
    code, out, err = run(capsys, "fit", str(train), "--target", "label", "--format", "json")
    assert code == 0, err
    model.write_text(out)
    code, out, err = run(capsys, "predict", str(model), str(rows))
    assert code == 2 and out == ""
    assert "fit with --missing split" in err and "missing=" not in err


def test_warnings_speak_in_flags_too(capsys):
    from odtree.cli import _print_warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("fit is slow: pass verbose=1 to watch it or set time_limit=60", UserWarning,
                      stacklevel=1)
    _print_warnings(caught)
    assert capsys.readouterr().err == ("odtree: warning: fit is slow: use --verbose to watch it "
                                       "or set --time-limit 60\n")


def test_a_text_target_for_regression_suggests_classification(capsys, tmp_path):
    path = tmp_path / "data.csv"
    path.write_text("age,label\n30,yes\n40,no\n50,yes\n")
    code, out, err = run(capsys, "fit", str(path), "--target", "label", "--task", "regression")
    assert code == 2 and out == ""
    assert "leave out --task regression" in err and "'yes'" in err


def test_a_column_named_like_a_parameter_keeps_its_name():
    from odtree.cli import _in_flags

    said = _in_flags("column 'missing' has missing values; pass missing='split'")
    assert said == "column 'missing' has missing values; use --missing split"
