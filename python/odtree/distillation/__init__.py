"""Distillation: the optimal tree that agrees best with a fitted model. The public names are
imported from :mod:`odtree`."""
