//! A regularised logistic regression fitted by Newton steps: the learned binder of issue 60
//! (`experiments/binding.rs`), whose coefficients the library evaluates
//! (`skinweights::binding::BinderModel`).

use nalgebra::{DMatrix, DVector};

/// A fitted logit over standardised features.
#[derive(Debug, Clone)]
pub struct Logit {
    /// Per feature, the weighted mean it is centred by.
    pub mean: Vec<f64>,
    /// Per feature, the weighted spread it is divided by (1 for a constant feature).
    pub scale: Vec<f64>,
    /// Per standardised feature, its coefficient.
    pub coef: Vec<f64>,
    /// The intercept.
    pub bias: f64,
}

impl Logit {
    /// The probability of the positive class for features `x`.
    pub fn probability(&self, x: &[f64]) -> f64 {
        let z = self.bias
            + x.iter()
                .zip(&self.mean)
                .zip(&self.scale)
                .zip(&self.coef)
                .map(|(((x, m), s), c)| c * (x - m) / s)
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// Fits `labels` from rows `x` (each `d` features), each row counted `weight` times, with an
/// L2 penalty `lambda` (per unit of total weight) on the standardised coefficients, by at most
/// 50 Newton steps.
pub fn fit(x: &[Vec<f64>], labels: &[bool], weight: &[f64], lambda: f64) -> Logit {
    let d = x.first().map_or(0, Vec::len);
    let total: f64 = weight.iter().sum::<f64>().max(1e-12);
    let mean: Vec<f64> = (0..d)
        .map(|k| x.iter().zip(weight).map(|(r, w)| r[k] * w).sum::<f64>() / total)
        .collect();
    let scale: Vec<f64> = (0..d)
        .map(|k| {
            let var = x
                .iter()
                .zip(weight)
                .map(|(r, w)| w * (r[k] - mean[k]).powi(2))
                .sum::<f64>()
                / total;
            if var > 1e-12 {
                var.sqrt()
            } else {
                1.0
            }
        })
        .collect();
    let z: Vec<Vec<f64>> = x
        .iter()
        .map(|r| (0..d).map(|k| (r[k] - mean[k]) / scale[k]).collect())
        .collect();
    // Parameters: d coefficients, then the intercept (not penalised).
    let mut beta = DVector::<f64>::zeros(d + 1);
    for _ in 0..50 {
        let mut grad = DVector::<f64>::zeros(d + 1);
        let mut hess = DMatrix::<f64>::zeros(d + 1, d + 1);
        for ((row, &y), &w) in z.iter().zip(labels).zip(weight) {
            let mut u = DVector::<f64>::from_element(d + 1, 1.0);
            row.iter().enumerate().for_each(|(k, &v)| u[k] = v);
            let p = 1.0 / (1.0 + (-beta.dot(&u)).exp());
            let t = if y { 1.0 } else { 0.0 };
            grad.axpy(w * (p - t), &u, 1.0);
            hess.ger(w * (p * (1.0 - p)).max(1e-9), &u, &u, 1.0);
        }
        for k in 0..d {
            grad[k] += lambda * total * beta[k];
            hess[(k, k)] += lambda * total;
        }
        let Some(step) = hess.lu().solve(&grad) else {
            break;
        };
        beta -= &step;
        if step.amax() < 1e-8 {
            break;
        }
    }
    Logit {
        mean,
        scale,
        coef: beta.iter().take(d).copied().collect(),
        bias: beta[d],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separates_a_threshold() {
        let x: Vec<Vec<f64>> = (0..100).map(|i| vec![i as f64, 1.0]).collect();
        let y: Vec<bool> = (0..100).map(|i| i >= 50).collect();
        let m = fit(&x, &y, &vec![1.0; 100], 1e-4);
        assert!(m.probability(&[80.0, 1.0]) > 0.9);
        assert!(m.probability(&[20.0, 1.0]) < 0.1);
    }
}
