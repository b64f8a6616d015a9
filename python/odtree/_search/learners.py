"""The compiled learners besides the optimal search, as the core gives them: the greedy (C4.5)
tree, the enumeration of distinct trees with the backward elimination built on it, and the
Rashomon set of optimal trees."""

from .. import _core

greedy_tree = _core.greedy_tree
DistinctTreeSearch = _core.DistinctTreeSearch
backward_elimination = _core.backward_elimination
rashomon_set = _core.rashomon_set
