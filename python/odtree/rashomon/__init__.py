"""Rashomon sets: every tree nearly as good as the optimal one. The public names are imported
from :mod:`odtree`."""
