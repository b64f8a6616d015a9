//! What a leaf costs, from statistics summed over its rows: the class weights for
//! classification, the weighted sums of the targets for squared error.

/// A leaf cost computed from per-row statistics that add up (shared by the threads of one
/// search, hence `Sync`).
pub trait Loss: Sync {
    /// How many numbers one accumulator of statistics holds.
    fn width(&self) -> usize;
    /// Adds the statistics of `row` to `acc`.
    fn add(&self, acc: &mut [f64], row: usize);
    /// The weight of `row`.
    fn weight(&self, row: usize) -> f64;
    /// The cost of a leaf holding the rows summed in `acc`.
    fn cost(&self, acc: &[f64]) -> f64;
    /// The cost of a leaf holding the rows of `total` that are not in `part`.
    fn cost_rest(&self, total: &[f64], part: &[f64]) -> f64;
    /// How much adding rows of weight `w` to a set can raise its optimal cost at most: `w`
    /// times this slope; `None` when unbounded (squared error).
    fn slope(&self) -> Option<f64>;
    /// The prediction of a leaf holding `acc`: a class index (0 without classes) and a value
    /// (the class index, or the regression value).
    fn predict(&self, acc: &[f64]) -> (usize, f64);
    /// The rows' classes when the loss counts misclassified rows of weight one (every
    /// weight 0 or 1, no cost matrix): sweeps can then count in integers.
    fn counted(&self) -> Option<&[u8]> {
        None
    }
}

/// Weighted misclassification, or the cost of a cost matrix, over `n_classes` classes.
pub struct ClassLoss {
    labels: Vec<u32>,
    weights: Vec<f64>,
    n_classes: usize,
    /// `costs[truth * n_classes + predicted]`; `None` for misclassification.
    costs: Option<Vec<f64>>,
    /// Two classes and misclassification: the leaf cost is the lighter class's weight.
    two_plain: bool,
    /// The labels as bytes, when every weight is 0 or 1 and there is no cost matrix.
    counted: Option<Vec<u8>>,
}

impl ClassLoss {
    /// A class loss over rows of these labels (each below `n_classes`) and weights; `costs`
    /// is the row-major cost matrix (true class by predicted class), if any.
    pub fn new(
        labels: Vec<u32>,
        weights: Vec<f64>,
        n_classes: usize,
        costs: Option<Vec<f64>>,
    ) -> Self {
        let unit = weights.iter().all(|&w| w == 0.0 || w == 1.0);
        let counted = (unit && costs.is_none() && n_classes <= 256)
            .then(|| labels.iter().map(|&l| l as u8).collect());
        Self {
            labels,
            weights,
            counted,
            two_plain: n_classes == 2 && costs.is_none(),
            n_classes,
            costs,
        }
    }

    /// The leaf cost of class weights `acc` (more than two classes, or a cost matrix).
    #[inline]
    fn best_of(&self, acc: &[f64]) -> f64 {
        if self.costs.is_none() {
            let (mut sum, mut top) = (0.0, 0.0f64);
            for &w in acc {
                sum += w;
                top = top.max(w);
            }
            return (sum - top).max(0.0);
        }
        self.best(|c| acc[c]).0
    }

    /// The leaf cost of class weights `total - part`.
    #[inline]
    fn best_rest(&self, total: &[f64], part: &[f64]) -> f64 {
        if self.costs.is_none() {
            let (mut sum, mut top) = (0.0, 0.0f64);
            for (&t, &p) in total.iter().zip(part) {
                let w = t - p;
                sum += w;
                top = top.max(w);
            }
            return (sum - top).max(0.0);
        }
        self.best(|c| total[c] - part[c]).0
    }

    /// The cost and class of the best prediction for class weights `at(k)`; ties go to the
    /// lowest class.
    #[inline]
    fn best(&self, at: impl Fn(usize) -> f64) -> (f64, usize) {
        let k = self.n_classes;
        match &self.costs {
            None => {
                let (mut total, mut top, mut class) = (0.0, f64::NEG_INFINITY, 0);
                for c in 0..k {
                    let w = at(c);
                    total += w;
                    if w > top {
                        (top, class) = (w, c);
                    }
                }
                ((total - top).max(0.0), class)
            }
            Some(costs) => {
                let (mut least, mut class) = (f64::INFINITY, 0);
                for p in 0..k {
                    let cost: f64 = (0..k).map(|t| costs[t * k + p] * at(t)).sum();
                    if cost < least {
                        (least, class) = (cost, p);
                    }
                }
                (least.max(0.0), class)
            }
        }
    }
}

impl Loss for ClassLoss {
    fn width(&self) -> usize {
        self.n_classes
    }

    #[inline(always)]
    fn add(&self, acc: &mut [f64], row: usize) {
        acc[self.labels[row] as usize] += self.weights[row];
    }

    #[inline]
    fn weight(&self, row: usize) -> f64 {
        self.weights[row]
    }

    #[inline(always)]
    fn cost(&self, acc: &[f64]) -> f64 {
        if self.two_plain {
            return acc[0].min(acc[1]);
        }
        self.best_of(acc)
    }

    #[inline(always)]
    fn cost_rest(&self, total: &[f64], part: &[f64]) -> f64 {
        if self.two_plain {
            return (total[0] - part[0]).min(total[1] - part[1]).max(0.0);
        }
        self.best_rest(total, part)
    }

    fn slope(&self) -> Option<f64> {
        Some(
            self.costs
                .as_ref()
                .map_or(1.0, |costs| costs.iter().copied().fold(0.0, f64::max)),
        )
    }

    fn predict(&self, acc: &[f64]) -> (usize, f64) {
        let class = self.best(|c| acc[c]).1;
        (class, class as f64)
    }

    fn counted(&self) -> Option<&[u8]> {
        self.counted.as_deref()
    }
}

/// The smallest share of a leaf's sum of squares its spread is told apart from 0 by.
const RESOLVED: f64 = 1e-12;

/// Weighted squared error around each leaf's weighted mean.
pub struct SquaredLoss {
    /// The targets minus their weighted mean, so that the sums stay small.
    centred: Vec<f64>,
    weights: Vec<f64>,
    mean: f64,
}

impl SquaredLoss {
    /// A squared-error loss over rows of these targets and weights.
    pub fn new(targets: &[f64], weights: Vec<f64>) -> Self {
        let total: f64 = weights.iter().sum();
        let mean = if total > 0.0 {
            targets
                .iter()
                .zip(&weights)
                .map(|(y, w)| y * w)
                .sum::<f64>()
                / total
        } else {
            0.0
        };
        Self {
            centred: targets.iter().map(|y| y - mean).collect(),
            weights,
            mean,
        }
    }

    /// The spread `wyy − wy²/w`, 0 where it is below what the subtraction can resolve
    /// (a leaf of equal targets then costs exactly 0, however its weight was summed, so that
    /// a row of weight 2 and two copies of it find the same tree).
    #[inline]
    fn of(w: f64, wy: f64, wyy: f64) -> f64 {
        if w <= 0.0 {
            return 0.0;
        }
        let spread = wyy - wy * wy / w;
        if spread <= RESOLVED * wyy {
            0.0
        } else {
            spread
        }
    }
}

impl Loss for SquaredLoss {
    fn width(&self) -> usize {
        3
    }

    #[inline]
    fn add(&self, acc: &mut [f64], row: usize) {
        let (w, y) = (self.weights[row], self.centred[row]);
        acc[0] += w;
        acc[1] += w * y;
        acc[2] += w * y * y;
    }

    #[inline]
    fn weight(&self, row: usize) -> f64 {
        self.weights[row]
    }

    #[inline]
    fn cost(&self, acc: &[f64]) -> f64 {
        Self::of(acc[0], acc[1], acc[2])
    }

    #[inline]
    fn cost_rest(&self, total: &[f64], part: &[f64]) -> f64 {
        Self::of(total[0] - part[0], total[1] - part[1], total[2] - part[2])
    }

    fn slope(&self) -> Option<f64> {
        None
    }

    fn predict(&self, acc: &[f64]) -> (usize, f64) {
        let mean = if acc[0] > 0.0 { acc[1] / acc[0] } else { 0.0 };
        (0, self.mean + mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_costs_follow_the_matrix_and_break_ties_low() {
        let loss = ClassLoss::new(vec![0, 1, 1], vec![1.0, 1.0, 1.0], 2, None);
        let mut acc = vec![0.0; 2];
        (0..3).for_each(|row| loss.add(&mut acc, row));
        assert_eq!(loss.cost(&acc), 1.0);
        assert_eq!(loss.predict(&[1.0, 1.0]).0, 0);
        // predicting 0 costs 5 per row of class 1: predicting 1 is cheaper
        let matrix = ClassLoss::new(
            vec![0, 1, 1],
            vec![1.0; 3],
            2,
            Some(vec![0.0, 1.0, 5.0, 0.0]),
        );
        assert_eq!(matrix.cost(&acc), 1.0);
        assert_eq!(matrix.cost_rest(&acc, &[1.0, 0.0]), 0.0);
        assert_eq!(matrix.slope(), Some(5.0));
    }

    #[test]
    fn squared_error_is_the_weighted_spread() {
        let loss = SquaredLoss::new(&[1.0, 3.0, 5.0], vec![1.0, 2.0, 1.0]);
        let mut acc = vec![0.0; 3];
        (0..3).for_each(|row| loss.add(&mut acc, row));
        assert!((loss.cost(&acc) - 8.0).abs() < 1e-12);
        assert!((loss.predict(&acc).1 - 3.0).abs() < 1e-12);
    }
}
