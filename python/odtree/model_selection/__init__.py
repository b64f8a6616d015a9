"""Choosing a tree's size: :class:`~odtree.OptimalTreeCV`, imported from :mod:`odtree`."""
