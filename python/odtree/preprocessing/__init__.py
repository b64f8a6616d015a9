"""From the user's columns to 0/1 features: the binarizer, its features, thresholds and
column reading. The public names are imported from :mod:`odtree`."""
