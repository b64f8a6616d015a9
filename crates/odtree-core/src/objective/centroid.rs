//! Predictive clustering (thesis §7.4, task 3): leaves are clusters of nearby points.

use crate::stats::{RowEvaluator, Weights};

/// A leaf costs `Σ w ‖x − c‖`, the weighted Euclidean distances of its rows' points to their
/// weighted centroid c.
#[derive(Clone, Debug)]
pub struct CentroidDistance {
    /// One point of `dim` coordinates per row, row after row.
    points: Vec<f64>,
    dim: usize,
}

impl CentroidDistance {
    /// Points of `dim ≥ 1` finite coordinates, one per row, row after row.
    pub fn new(points: Vec<f64>, dim: usize) -> Self {
        debug_assert!(dim > 0 && points.len() % dim == 0);
        Self { points, dim }
    }

    fn point(&self, row: u32) -> &[f64] {
        let start = row as usize * self.dim;
        &self.points[start..start + self.dim]
    }
}

impl RowEvaluator for CentroidDistance {
    fn n_stats(&self) -> usize {
        2
    }

    fn evaluate(&self, rows: &[u32], weights: &Weights, out: &mut [f64]) {
        let mut centroid = vec![0.0; self.dim];
        let mut total = 0.0;
        for &row in rows {
            let w = weights.of(row as usize);
            total += w;
            centroid
                .iter_mut()
                .zip(self.point(row))
                .for_each(|(c, x)| *c += w * x);
        }
        if total > 0.0 {
            centroid.iter_mut().for_each(|c| *c /= total);
        }
        let cost = rows
            .iter()
            .map(|&row| {
                let squared: f64 = self
                    .point(row)
                    .iter()
                    .zip(&centroid)
                    .map(|(x, c)| (x - c) * (x - c))
                    .sum();
                weights.of(row as usize) * squared.sqrt()
            })
            .sum();
        out[0] = total;
        out[1] = cost;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_is_the_distance_to_the_centroid() {
        // points (0,0), (2,0) and (1,3): centroid (1,1)
        let objective = CentroidDistance::new(vec![0.0, 0.0, 2.0, 0.0, 1.0, 3.0], 2);
        let weights = Weights::new(None, 3).unwrap();
        let mut out = [0.0; 2];
        objective.evaluate(&[0, 1, 2], &weights, &mut out);
        assert_eq!(out[0], 3.0);
        assert!((out[1] - (2.0 * 2f64.sqrt() + 2.0)).abs() < 1e-12);
    }
}
