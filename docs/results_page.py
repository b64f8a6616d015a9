"""The Benchmarks page's sections, read from ``benchmarks/RESULTS.md`` when the site is built.

``site_docs/benchmarks.md`` prints :func:`results` for each section it shows, under its own
heading that says what the section measures. ``RESULTS.md`` is the development log: its
headings and some of its prose name the issue each run belonged to, and its program outputs
are fixed-width text up to 200 characters wide, which a 1280 px page can only show in a
sideways-scrolling box. So :func:`results`

* leaves out the paragraphs and list items that refer to an issue (a table that does is an
  error, so that the build fails rather than drop figures), and
* turns each column-aligned table inside an output block into a Markdown table, whose cells
  wrap, and the lines around it into paragraphs, a line each, that wrap too.

Examples
--------
>>> print(text_to_markdown('''Depth 2
... dataset      odtree    pystreed  ratio
... ---------  --------  ----------  -----
... anneal      0.00214      0.0037   0.58
... audiology   0.00397     0.00614  0.647'''))
Depth 2
<BLANKLINE>
| dataset | odtree | pystreed | ratio |
|---|---|---|---|
| anneal | 0.00214 | 0.0037 | 0.58 |
| audiology | 0.00397 | 0.00614 | 0.647 |
"""

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "benchmarks" / "RESULTS.md"
_ISSUE = re.compile(r"\bissues?\b", re.IGNORECASE)
_DASHES = re.compile(r"\s*-{3,}(\s+-{3,})+\s*")
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def results(heading: str, text: str | None = None) -> str:
    """The Markdown of the section of ``RESULTS.md`` whose heading starts with ``heading``
    (up to the next heading of any level), with the history left out and tables converted."""
    text = RESULTS.read_text(encoding="utf-8") if text is None else text
    found = re.search(rf"^#+ {re.escape(heading)}.*$", text, re.MULTILINE)
    if found is None:
        raise ValueError(f"no section {heading!r} in {RESULTS}")
    rest = text[found.end():]
    end = re.search(r"^#+ ", rest, re.MULTILINE)
    kept = []
    for block in _blocks(rest[:end.start()] if end else rest):
        if _ISSUE.search(block):
            if block.startswith(("```", "|")):
                raise ValueError(f"section {heading!r}: a table or output names an issue")
            continue
        if block.startswith("```"):
            block = text_to_markdown(_FENCE.match(block + "\n").group(1))
        kept.append(block)
    return "\n\n".join(kept)


def _blocks(body: str) -> list[str]:
    """The Markdown blocks of ``body``: fenced outputs, tables, list items and paragraphs."""
    blocks, current, fenced = [], [], False
    for line in body.splitlines():
        new_item = not fenced and line.startswith("- ")
        new_table = (not fenced and line.startswith("|") and bool(current)
                     and not current[-1].startswith("|"))
        if (not fenced and not line.strip()) or new_item or new_table:
            if current:
                blocks.append("\n".join(current))
            current = [line] if line.strip() else []
        else:
            current.append(line)
        if line.startswith("```"):
            fenced = not fenced
    if current:
        blocks.append("\n".join(current))
    return blocks


def text_to_markdown(output: str) -> str:
    """A program's output: its column-aligned tables (and Markdown tables) as Markdown tables,
    every other run of lines as paragraphs of literal lines."""
    lines = output.rstrip("\n").split("\n")
    parts, text, i = [], [], 0
    while i < len(lines):
        if lines[i].startswith("|"):
            end = i
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            parts, text = _flush(parts, text) + ["\n".join(lines[i:end])], []
            i = end
            continue
        end = _table_end(lines, i)
        if end is None:
            text.append(lines[i])
            i += 1
            continue
        table, end = _aligned_table(lines, i, end)
        parts, text = _flush(parts, text) + [table], []
        i = end
    return "\n\n".join(_flush(parts, text))


def _flush(parts: list[str], text: list[str]) -> list[str]:
    """``parts`` and then the lines of ``text`` as paragraphs (blank lines part them), each
    line on its own and taken literally, so that long lines wrap instead of scrolling."""
    paragraphs = "\n".join(text).strip("\n").split("\n\n")
    return parts + ["<br>\n".join(_literal(line) for line in paragraph.split("\n"))
                    for paragraph in paragraphs if paragraph.strip()]


def _literal(line: str) -> str:
    """``line`` escaped so that Markdown shows it as it is."""
    line = line.strip().replace("&", "&amp;").replace("<", "&lt;")
    line = re.sub(r"([\\`*_{}\[\]()#+!|>-])", r"\\\1", line)
    return re.sub(r"^(\d+)\. ", r"\1\\. ", line)  # not an ordered list


def _cells(line: str) -> list[str]:
    return [c for c in re.split(r"\s{2,}", line.strip()) if c]


def _table_end(lines: list[str], start: int) -> int | None:
    """The end of the run of column-like lines (3 or more cells, or dashes) from ``start``,
    if it holds a header and 2 rows or more; else None."""
    end = start
    while end < len(lines) and (len(_cells(lines[end])) >= 3 or _DASHES.fullmatch(lines[end])):
        end += 1
    rows = [line for line in lines[start:end] if not _DASHES.fullmatch(line)]
    return end if len(rows) >= 3 else None


def _aligned_table(lines: list[str], start: int, end: int) -> tuple[str, int]:
    """The Markdown table of the aligned lines ``start:end`` and the lines after them that
    keep to its columns (totals); returns it with the index of the first line left."""
    width = max(len(line) for line in lines[start:end])
    space = [all(p >= len(line) or line[p] == " " for line in lines[start:end])
             for p in range(width)]
    columns, p = [], 0  # [first, last) of each column; gutters are 2 spaces or more
    while p < width:
        if space[p]:
            p += 1
            continue
        first = p
        while p < width and not (space[p] and (p + 1 >= width or space[p + 1])):
            p += 1
        columns.append((first, p))
    while end < len(lines) and lines[end].strip() and all(
            ch == " " or any(a <= q < b for a, b in columns)
            for q, ch in enumerate(lines[end])):
        end += 1
    bounds = [a for a, _ in columns[1:]] + [None]
    rows = []
    for line in lines[start:end]:
        if _DASHES.fullmatch(line):
            continue
        starts = [0] + bounds[:-1]
        rows.append([line[a:b].strip().replace("|", "\\|")
                     for a, b in zip(starts, bounds, strict=True)])
    header, body = rows[0], rows[1:]
    markdown = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    markdown += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(markdown), end
