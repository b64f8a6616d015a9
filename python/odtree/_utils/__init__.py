"""What every family shares and nothing else: warnings at the user's line, the estimator
registry, one deadline for every time budget, the reading of input containers, and the
parameter checks done once."""
