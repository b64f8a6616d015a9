"""Distinct decision trees (Ruggieri's DTdistinct) and the feature selection built on them.
The public names are imported from :mod:`odtree`."""
