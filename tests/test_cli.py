"""The odtree command: version, argument errors (exit 2, no traceback), progress, fitting."""

import io
import json
import time
from pathlib import Path

import odtree
import pytest
from odtree.cli import _with_progress, main

DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "datasets"


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
    assert code == 0 and out.startswith("|--- ") and "class: " in out
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
    assert code == 0 and out.startswith("|--- ")
    assert "odtree: warning: time limit of 0.3 s reached" in err
    assert "status time_limit, optimal False" in err


@pytest.mark.usefixtures("fitted_cli")
def test_parameters_the_estimator_rejects_exit_with_2(capsys):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "zoo-1.txt"), "--max-depth", "-1")
    assert code == 2 and out == "" and "max_depth" in err


@pytest.mark.usefixtures("fitted_cli")
def test_demo(capsys):
    code, out, _ = run(capsys, "demo", "--no-progress")
    assert code == 0 and "class: benign" in out and "training accuracy: 0.9" in out


@pytest.mark.usefixtures("fitted_cli")
def test_verbose_prints_the_progress_on_stderr(capsys):
    code, out, err = run(capsys, "fit", str(DATA_DIR / "zoo-1.txt"), "--max-depth", "2", "-v")
    assert code == 0 and out.startswith("|--- ")
    assert "objective" in err and "gap" in err and "(end)" in err
