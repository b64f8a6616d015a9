"""Optimal decision trees and the tree estimators: the tree arrays, the estimators' shared base,
the classifier, regressor and clusterer, the greedy tree, the pruning path, text and drawing
output, and the bridge to scikit-learn's trees. The public names are imported from
:mod:`odtree`."""
