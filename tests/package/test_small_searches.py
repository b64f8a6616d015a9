"""A small Rashomon search (depth ≤ 2, ≤ 16 features, ≤ 1,024 rows) runs on the calling
thread: it does not wait behind a long search holding the kept worker threads."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import threading, time
    import numpy as np
    from odtree import RashomonSet

    rng = np.random.default_rng(0)
    big_X, big_y = rng.integers(0, 2, size=(3000, 40)), rng.integers(0, 2, size=3000)
    X, y = rng.integers(0, 2, size=(200, 8)), rng.integers(0, 2, size=200)
    expected = RashomonSet(max_depth=2, epsilon=0.1).fit(X, y).n_trees_

    def long_search():  # holds the only kept thread for its time limit
        RashomonSet(max_depth=4, epsilon=1.0, max_trees=10, time_limit=4).fit(big_X, big_y)

    holder = threading.Thread(target=long_search)
    holder.start()
    time.sleep(0.5)
    start = time.perf_counter()
    found = RashomonSet(max_depth=2, epsilon=0.1).fit(X, y).n_trees_
    seconds = time.perf_counter() - start
    still_busy = holder.is_alive()
    holder.join()
    print(found == expected, still_busy, seconds)
""")


def test_a_small_search_does_not_wait_for_the_kept_threads():
    # one kept thread, so that the long search holds all of them
    env = {"RAYON_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    same, still_busy, seconds = done.stdout.split()
    assert same == "True"
    # queued behind the long search (4 s from its start), it would end after it
    assert still_busy == "True", f"the small search waited {seconds} s, for the long one"
    assert float(seconds) < 2.0
