"""What every family shares and nothing else: warnings at the user's line, the estimator
registry, one deadline for every time budget, and the reading of input containers."""
