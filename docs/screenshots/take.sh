#!/usr/bin/env bash
# Refresh the screenshots of the documentation site in this folder (not run in CI).
#
# Needs: the site's tools (mkdocs-material, mkdocstrings, markdown-exec) in a Python that can
# import odtree, and a headless Chromium (Debian: `apt-get install chromium`; optional:
# `apt-get install pngquant` to shrink the PNGs). Run from anywhere: docs/screenshots/take.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
site="$(mktemp -d)"
port="${PORT:-8765}"
browser="$(command -v chromium || command -v chromium-headless-shell || command -v google-chrome)"

cd "$root"
PYTHONPATH=python NO_MKDOCS_2_WARNING=1 mkdocs build --strict -d "$site"

python -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
trap 'kill "$server"; rm -rf "$site"' EXIT
for _ in $(seq 50); do  # wait until the server answers
    python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" \
        2>/dev/null && break
    sleep 0.1
done

shot() {  # shot NAME HEIGHT URL
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --window-size="1280,$2" --virtual-time-budget=5000 \
        --screenshot="$here/$1.png" "$3" 2>/dev/null
    if command -v pngquant >/dev/null; then
        pngquant --force --skip-if-larger --quality=70-95 --output "$here/$1.png" "$here/$1.png" \
            || true
    fi
    echo "$here/$1.png: $(wc -c <"$here/$1.png") bytes"
}

shot front-page 1000 "http://127.0.0.1:$port/"
# the Trees page, tall enough to show its first picture (an optimal classifier on iris); an
# anchor in the URL would leave a blank band above the sticky header in headless screenshots
shot tree-page 1450 "http://127.0.0.1:$port/trees/"
