"""Warnings odtree emits."""


class NotOptimalWarning(UserWarning):
    """The search stopped early (time limit or Ctrl-C): the tree may not be optimal."""


class InfeasibleWarning(UserWarning):
    """No tree beats the requested ``upper_bound``; the model is the best single leaf."""
