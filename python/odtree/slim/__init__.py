"""DT-SLIM: making a fitted tree shallower by SAT-based local improvement. The public names
are imported from :mod:`odtree`."""
