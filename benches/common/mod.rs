//! What the runner and server benchmarks share: their settings from the
//! environment and the statistics they print.

// Each benchmark uses some of these.
#![allow(dead_code)]

use std::time::Duration;

/// The count `variable` sets, else `default`.
pub fn count(variable: &str, default: usize) -> usize {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The median of `samples`, which it sorts.
pub fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The `p` quantile (0 to 1) of sorted `samples`.
pub fn percentile(samples: &[Duration], p: f64) -> Duration {
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

/// `duration` in milliseconds.
pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
