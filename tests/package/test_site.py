"""The documentation site, built strictly and looked at in a real browser (headless Chromium).

The site is built with ``mkdocs build --strict`` into a temporary folder and served on
localhost. Every page is checked for Sphinx roles or reStructuredText literals shown as they
are (``:class:`` and the like), for "issue N" references and for tables without a body row,
and every parameter default on the API pages against the signature; headless Chromium then
loads every page in a 1280 px wide frame and reports whether the page or any table is wider
than its room, and takes the screenshots in ``docs/screenshots/`` again (front page, quick
start, the OptimalTreeClassifier page, the benchmarks page and the Trees page).

Needs the site's tools (``pip install "mkdocs-material>=9.5" "mkdocstrings[python]>=0.26"
"markdown-exec>=1.9"``) and, for the browser, Chromium (Debian: ``apt-get install
chromium``); those tests skip, saying which is missing, without them. The tests of the
Benchmarks page's reader (``docs/results_page.py``) and of the guide's parameter table need
neither.
"""

import ast
import functools
import html.parser
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs"))
import results_page  # noqa: E402 - docs/results_page.py, the Benchmarks page's reader

SCREENSHOTS = ROOT / "docs" / "screenshots"
WIDTH = 1280
# (file name, page, height): the pictures the test takes again on every run
SHOTS = [
    ("front-page.png", "", 900),
    ("quick-start.png", "quickstart/", 1700),
    ("estimator-page.png", "estimators/classifier/", 2000),
    ("benchmarks.png", "benchmarks/", 1500),
    # tall enough to show the Trees page's first picture (an optimal iris classifier)
    ("tree-page.png", "trees/", 1450),
]
# a Sphinx role as Markdown leaves it (":class:" then the name), not Rust's "crate::data::X"
LITERAL_ROLE = re.compile(
    r"(?<![:\w]):(?:py:)?(?:class|func|meth|attr|mod|data|obj|exc|const|ref|term):(?!:)")
# reStructuredText's ``literal`` that Markdown left as it is (in a type, for example)
RST_LITERAL = re.compile(r"``\w[^`]*``")
# the development history's "issue 12": the site describes results by what they measure
ISSUE = re.compile(r"\bissues? \d+", re.IGNORECASE)


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome", "chromium-headless-shell"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _missing_tools(browser=False):
    missing = [pkg for pkg, module in [("mkdocs-material", "material"), ("mkdocs", "mkdocs"),
                                       ("mkdocstrings[python]", "mkdocstrings_handlers"),
                                       ("markdown-exec", "markdown_exec")]
               if importlib.util.find_spec(module) is None]
    if browser and _browser() is None:
        missing.append("chromium (apt-get install chromium)")
    return missing


needs_site = pytest.mark.skipif(
    bool(_missing_tools()), reason=f"the site check needs {', '.join(_missing_tools())}")
needs_browser = pytest.mark.skipif(
    bool(_missing_tools(browser=True)),
    reason=f"the browser check needs {', '.join(_missing_tools(browser=True))}")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built strictly into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                           str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    return out


@pytest.fixture(scope="module")
def server(site):
    """The base URL of the built site, served on localhost for the browser."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def _pages(site):
    """Every HTML page of the site (the 404 page left out), as paths relative to it."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html"))


class _PageText(html.parser.HTMLParser):
    """The visible text of a page (scripts, styles and the search index left out) and its
    tables' body row counts."""

    def __init__(self):
        super().__init__()
        self.text, self.table_rows, self._skip = [], [], 0
        self._in_thead = False

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "table":
            self.table_rows.append(0)
        elif tag == "thead":
            self._in_thead = True
        elif tag == "tr" and self.table_rows and not self._in_thead:
            self.table_rows[-1] += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        elif tag == "thead":
            self._in_thead = False

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


@needs_site
def test_no_page_shows_a_role_a_literal_an_issue_number_or_an_empty_table(site):
    problems = []
    for page in _pages(site):
        parsed = _PageText()
        parsed.feed((site / page).read_text(encoding="utf-8"))
        text = "".join(parsed.text)
        for match in LITERAL_ROLE.finditer(text):
            problems.append(f"{page}: literal role {text[match.start():match.end() + 40]!r}")
        for match in RST_LITERAL.finditer(text):
            problems.append(f"{page}: literal {match.group()!r}")
        for match in ISSUE.finditer(text):
            problems.append(f"{page}: cites {text[max(match.start() - 40, 0):match.end()]!r}")
        problems += [f"{page}: table {i} has no body row"
                     for i, rows in enumerate(parsed.table_rows) if rows == 0]
    assert len(_pages(site)) >= 10
    assert not problems, "\n".join(problems)


@needs_site
def test_api_pages_show_each_parameter_default_of_the_signature(site):
    import importlib
    import inspect

    checked = 0
    for page in sorted((site / "estimators").rglob("index.html")):
        text = page.read_text(encoding="utf-8")
        parts = re.split(r'<h2 id="(odtree\.[\w.]+)"', text)
        for path, section in zip(parts[1::2], parts[2::2], strict=True):
            module, name = path.rsplit(".", 1)
            signature = inspect.signature(getattr(importlib.import_module(module), name))
            tables = re.findall(r"<table>.*?</table>", section.split('<h2 id="', 1)[0], re.S)
            table = next((t for t in tables if "PARAMETER</span></th>" in t), "")
            for row in re.findall(r'<tr class="doc-section-item">(.*?)</tr>', table, re.S):
                param = re.search(r"<code>(\w+)</code>", row).group(1)
                default = re.search(r'doc-param-default">.*?<code>(.*?)</code>', row, re.S)
                shown = html.unescape(re.sub(r"<[^>]+>", "", default.group(1))) if default \
                    else None
                real = signature.parameters[param].default
                expected = None if real is inspect.Parameter.empty else repr(real)
                assert shown == expected, f"{path}({param}=...): the page says {shown}"
                checked += 1
    assert checked > 100


# Loads each page in a 1280 px wide frame of the same origin and writes what it measured into
# the probe page's <pre>, which chromium --dump-dom prints once the virtual time is up.
PROBE = r"""<!doctype html><html><body><pre id="out">[]</pre><script>
const pages = %s, results = [];
function next(i) {
  if (i === pages.length) { document.getElementById("out").textContent =
                              JSON.stringify(results); return; }
  const frame = document.createElement("iframe");
  frame.style.width = "%dpx"; frame.style.height = "900px";
  frame.onload = () => setTimeout(() => {
    const doc = frame.contentDocument, wide = [];
    for (const t of doc.querySelectorAll("table, .md-typeset__scrollwrap")) {
      if (t.scrollWidth > t.clientWidth + 1) {
        wide.push(`${t.className || t.tagName} ${t.scrollWidth} > ${t.clientWidth} px: ` +
                  t.innerText.slice(0, 60).replace(/\s+/g, " "));
      }
    }
    const text = doc.body.innerText;
    results.push({page: pages[i], width: doc.documentElement.scrollWidth, wide: wide,
                  tables: doc.querySelectorAll("article table").length,
                  empty: [...doc.querySelectorAll("article table")].filter(
                    t => t.querySelectorAll("tbody tr").length === 0).length,
                  roles: (text.match(/(?<![:\w]):(class|func|meth|attr|mod|data|obj|exc):(?!:)/g)
                          || [])});
    frame.remove(); next(i + 1);
  }, 200);
  frame.src = pages[i];
  document.body.appendChild(frame);
}
next(0);
</script></body></html>"""


def _chromium(*args, timeout=60):
    command = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--disable-dev-shm-usage", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command} failed:\n{done.stderr[-2000:]}"
    return done.stdout


@needs_browser
def test_every_page_fits_1280_px_in_a_browser(site, server):
    pages = [p.removesuffix("index.html") for p in _pages(site)]
    (site / "probe.html").write_text(PROBE % (json.dumps(pages), WIDTH), encoding="utf-8")
    dom = _chromium(f"--window-size={WIDTH + 40},1000", "--virtual-time-budget=30000",
                    "--dump-dom", server + "probe.html", timeout=120)
    found = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    results = json.loads(html.unescape(found.group(1)))
    assert [r["page"] for r in results] == pages, "the browser did not load every page"
    problems = []
    for r in results:
        if r["width"] > WIDTH:
            problems.append(f"{r['page'] or 'front page'}: {r['width']} px wide")
        problems += [f"{r['page']}: cut off: {w}" for w in r["wide"]]
        if r["empty"]:
            problems.append(f"{r['page']}: {r['empty']} empty tables")
        if r["roles"]:
            problems.append(f"{r['page']}: literal roles {r['roles']}")
    assert not problems, "\n".join(problems)
    classifier = next(r for r in results if r["page"] == "estimators/classifier/")
    assert classifier["tables"] >= 2  # its Parameters and Attributes tables were rendered


@needs_browser
@pytest.mark.parametrize("name,page,height", SHOTS, ids=[s[0] for s in SHOTS])
def test_screenshots_are_taken_again(server, name, page, height):
    target = SCREENSHOTS / name
    target.unlink(missing_ok=True)
    _chromium(f"--window-size={WIDTH},{height}", "--virtual-time-budget=5000",
              f"--screenshot={target}", server + page)
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, tall = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, tall) == (WIDTH, height)


def test_benchmark_output_becomes_a_markdown_table():
    output = """Solvers: odtree 0.1.0, pystreed 1.4.0

Depth 2
dataset               optimum      odtree    pystreed  odtree/pystreed
------------------  ---------  ----------  ----------  ---------------
anneal                    137     0.00214      0.0037             0.58
zoo-1                       0     0.00284     0.00136             2.09
------------------  ---------  ----------  ----------  ---------------
geometric mean (n)                                          0.466 (23)
Solved by no solver at depth 2: none"""
    assert results_page.text_to_markdown(output) == "\n\n".join([
        "Solvers: odtree 0.1.0, pystreed 1.4.0", "Depth 2",
        "| dataset | optimum | odtree | pystreed | odtree/pystreed |\n|---|---|---|---|---|\n"
        "| anneal | 137 | 0.00214 | 0.0037 | 0.58 |\n| zoo-1 | 0 | 0.00284 | 0.00136 | 2.09 |\n"
        "| geometric mean (n) |  |  |  | 0.466 (23) |",
        "Solved by no solver at depth 2: none"])
    # the other lines are shown literally: no emphasis, list or HTML
    assert results_page.text_to_markdown("1. a_b *c* <d>\nnext") == (
        "1\\. a\\_b \\*c\\* &lt;d\\><br>\nnext")


def test_benchmark_sections_leave_the_history_out():
    text = """# Benchmark results

## A race (issue 3): `compare.py`

What was measured.

Faster than before this issue.

- kept
- the issue's target holds

```
a  b  c
1  2  3
4  5  6
```

## Next
"""
    assert results_page.results("A race", text) == (
        "What was measured.\n\n- kept\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n"
        "| 4 | 5 | 6 |")
    with pytest.raises(ValueError, match="no section"):
        results_page.results("No such race", text)
    with pytest.raises(ValueError, match="names an issue"):
        results_page.results("A race", text.replace("4  5  6", "4  5  issue 6"))


def test_every_benchmark_section_the_page_shows_has_content():
    page = (ROOT / "site_docs" / "benchmarks.md").read_text(encoding="utf-8")
    headings = re.findall(r"^show\((.+)\)$", page, re.MULTILINE)
    assert len(headings) >= 15
    for heading in headings:
        shown = results_page.results(ast.literal_eval(heading))
        assert len(shown) > 100, heading
        assert not re.search(r"\bissues?\b", shown, re.IGNORECASE), heading


def test_the_guide_lists_every_classifier_parameter_with_its_default():
    import inspect

    from odtree import OptimalTreeClassifier

    guide = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
    table = guide.split("### Parameters", 1)[1].split("\n### ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", table, re.MULTILINE))
    signature = inspect.signature(OptimalTreeClassifier).parameters
    assert sorted(rows) == sorted(signature), "the guide's table and the signature differ"
    for name, written in rows.items():
        default = signature[name].default
        shown = f'`"{default}"`' if isinstance(default, str) else str(default)
        assert written.strip() == shown, f"{name}: the guide says {written.strip()}"
