//! Predictive clustering (thesis §7.4, task 3): leaves are clusters of nearby points.

use crate::error::{OdtError, Result};
use crate::stats::{RowEvaluator, Weights};

/// A leaf costs `Σ w ‖x − c‖`, the weighted Euclidean distances of its rows' points to their
/// weighted centroid c.
///
/// Points are kept divided by the power of two just below their largest coordinate, and distances
/// multiplied back: exact, and no square overflows.
#[derive(Clone, Debug)]
pub struct CentroidDistance {
    /// One point of `dim` coordinates per row, row after row, divided by `unit`.
    points: Vec<f64>,
    dim: usize,
    unit: f64,
}

impl CentroidDistance {
    /// Points of `dim ≥ 1` finite coordinates, one per row of `weights`, row after row.
    /// Points whose distances overflow a float are refused.
    pub fn new(points: Vec<f64>, dim: usize, weights: &Weights) -> Result<Self> {
        let n_rows = weights.n_rows();
        if dim == 0 || points.len() != n_rows * dim {
            return Err(OdtError::InvalidData(format!(
                "{} coordinates for {n_rows} rows of {dim} dimensions",
                points.len()
            )));
        }
        if points.iter().any(|x| !x.is_finite()) {
            return Err(OdtError::InvalidData("points must be finite".into()));
        }
        let largest = points.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        // subnormal coordinates keep their scale: a power of two that small is not a float
        let unit = if largest >= f64::MIN_POSITIVE {
            2f64.powi(largest.log2().floor() as i32)
        } else {
            1.0
        };
        // scaled coordinates lie in (-2, 2), so a distance is below 4 √dim units
        let total: f64 = (0..n_rows).map(|row| weights.of(row)).sum();
        if !(4.0 * (dim as f64).sqrt() * total * unit).is_finite() {
            return Err(OdtError::InvalidData(
                "the distances between the points overflow a 64-bit float: rescale the \
                 points (the tree does not change)"
                    .into(),
            ));
        }
        Ok(Self {
            points: points.into_iter().map(|x| x / unit).collect(),
            dim,
            unit,
        })
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
            .sum::<f64>()
            * self.unit;
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
        let weights = Weights::new(None, 3).unwrap();
        let points = vec![0.0, 0.0, 2.0, 0.0, 1.0, 3.0];
        let objective = CentroidDistance::new(points.clone(), 2, &weights).unwrap();
        let mut out = [0.0; 2];
        objective.evaluate(&[0, 1, 2], &weights, &mut out);
        assert_eq!(out[0], 3.0);
        assert!((out[1] - (2.0 * 2f64.sqrt() + 2.0)).abs() < 1e-12);
        // the same points scaled by 1e200 cost 1e200 times as much, without overflow
        let huge = points.iter().map(|x| x * 1e200).collect();
        let mut scaled = [0.0; 2];
        CentroidDistance::new(huge, 2, &weights).unwrap().evaluate(
            &[0, 1, 2],
            &weights,
            &mut scaled,
        );
        assert!((scaled[1] / 1e200 - out[1]).abs() < 1e-12);
        let two = Weights::new(None, 2).unwrap();
        assert!(CentroidDistance::new(vec![1e308, -1e308], 1, &two).is_err());
        assert!(CentroidDistance::new(vec![0.0; 4], 2, &weights).is_err());
        // subnormal coordinates: a finite unit
        let tiny = CentroidDistance::new(vec![2.2e-313, 0.0, 0.0, 0.0, 0.0, 0.0], 2, &weights);
        assert!(tiny.unwrap().unit.is_normal());
    }
}
