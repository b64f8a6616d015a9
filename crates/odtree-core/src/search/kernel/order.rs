//! Branching heuristics: the order in which a node tries its candidate features.

/// Entropy (in bits) of a distribution given by non-negative weights.
fn entropy(weights: impl Iterator<Item = f64> + Clone) -> f64 {
    let total: f64 = weights.clone().sum();
    if total <= 0.0 {
        return 0.0;
    }
    -weights
        .filter(|&w| w > 0.0)
        .map(|w| w / total * (w / total).log2())
        .sum::<f64>()
}

/// Information gain of splitting a node with class weights `parent` into a child with class
/// weights `positive` and the rest.
pub fn information_gain(parent: &[f64], positive: &[f64]) -> f64 {
    let total: f64 = parent.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let pos_total: f64 = positive.iter().sum();
    let negative = parent.iter().zip(positive).map(|(p, q)| (p - q).max(0.0));
    let neg_total = total - pos_total;
    entropy(parent.iter().copied())
        - pos_total / total * entropy(positive.iter().copied())
        - neg_total / total * entropy(negative)
}

/// Gini impurity of a distribution given by non-negative weights.
fn gini(weights: impl Iterator<Item = f64> + Clone) -> f64 {
    let total: f64 = weights.clone().sum();
    if total <= 0.0 {
        return 0.0;
    }
    1.0 - weights.map(|w| (w / total) * (w / total)).sum::<f64>()
}

/// Gini gain of splitting a node with class weights `parent` into a child with class weights
/// `positive` and the rest (MurTree §4.7).
pub fn gini_gain(parent: &[f64], positive: &[f64]) -> f64 {
    let total: f64 = parent.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    let pos_total: f64 = positive.iter().sum();
    let negative = parent.iter().zip(positive).map(|(p, q)| (p - q).max(0.0));
    gini(parent.iter().copied())
        - pos_total / total * gini(positive.iter().copied())
        - (total - pos_total) / total * gini(negative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gain_of_a_perfect_split_is_the_parent_entropy() {
        assert!((information_gain(&[2.0, 2.0], &[2.0, 0.0]) - 1.0).abs() < 1e-12);
        assert!(information_gain(&[2.0, 2.0], &[1.0, 1.0]).abs() < 1e-12);
        assert!((gini_gain(&[2.0, 2.0], &[2.0, 0.0]) - 0.5).abs() < 1e-12);
        assert!(gini_gain(&[2.0, 2.0], &[1.0, 1.0]).abs() < 1e-12);
    }
}
