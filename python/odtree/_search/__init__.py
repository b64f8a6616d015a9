"""The one door to the compiled search (:mod:`odtree._core`): the solver, the exact search over
every threshold, progress, interrupts and memory limits. No other module imports the compiled
module."""
