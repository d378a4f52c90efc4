//! GM transfers by burst. A DMA copy of a region moves it as contiguous runs (bursts: one per row
//! of the region unless whole rows of the tensor follow each other); each burst holds the DMA for
//! at least `gm_to_l1_burst_cycles` (cube core) or `gm_to_ub_burst_cycles` (vector core), so short
//! rows move below the path rate. Copies that follow each
//! other on a queue keep their requests outstanding: only a copy that starts on a drained queue
//! waits the first-byte latency (`gm_startup_cycles`), every copy pays `gm_issue_cycles`.
//! The figures and their fits: docs/npu-model.md, "Bursts".

/// The contiguous runs of a `region_shape` region of a row-major `tensor_shape` tensor: how many
/// and the bytes of each. Trailing dims the region spans whole merge into one run.
pub fn bursts(tensor_shape: &[usize], region_shape: &[usize], element_bytes: u64) -> (u64, u64) {
    let elements: u64 = region_shape.iter().map(|dim| *dim as u64).product();
    let Some(last) = region_shape.len().checked_sub(1) else { return (1, element_bytes) };
    if elements == 0 {
        return (0, 0);
    }
    let mut run = region_shape[last] as u64;
    let mut dim = last;
    while dim > 0 && tensor_shape.get(dim) == Some(&region_shape[dim]) {
        dim -= 1;
        run *= region_shape[dim] as u64;
    }
    (elements / run, run * element_bytes)
}

/// The rate a transfer of runs of `run_bytes` moves at over a path of `path_bytes_per_cycle`:
/// the path rate, or less when a run takes under `burst_cycles` at the path rate.
pub fn burst_rate(path_bytes_per_cycle: f64, run_bytes: u64, burst_cycles: f64) -> f64 {
    if run_bytes == 0 {
        return path_bytes_per_cycle;
    }
    let cycles = (run_bytes as f64 / path_bytes_per_cycle).max(burst_cycles);
    run_bytes as f64 / cycles
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_over_whole_rows_only() {
        // A [256, 64] f16 region of a [8192, 128] tensor: 256 rows of 64 × 2 = 128 B.
        assert_eq!(bursts(&[8192, 128], &[256, 64], 2), (256, 128));
        // The same rows of a [8192, 64] tensor follow each other: one run of 256 × 128 B.
        assert_eq!(bursts(&[8192, 64], &[256, 64], 2), (1, 32768));
        // A [2, 3, 4] region of [5, 3, 4]: the last two dims whole, so 2 × 3 × 4 merge into one run.
        assert_eq!(bursts(&[5, 3, 4], &[2, 3, 4], 4), (1, 96));
        // A [2, 2, 4] region of [5, 3, 4]: rows of 4 merge per 2, the middle dim is partial: 2 runs.
        assert_eq!(bursts(&[5, 3, 4], &[2, 2, 4], 4), (2, 32));
    }

    #[test]
    fn short_runs_move_below_the_path_rate() {
        // 110 B/cycle path, 5.19-cycle burst floor: a 128-B run would take 1.16 cycles, so it takes
        // 5.19: 128 / 5.19 = 24.66 B/cycle. A 2048-B run takes 18.6 cycles: the path rate.
        assert!((burst_rate(110.0, 128, 5.19) - 128.0 / 5.19).abs() < 1e-9);
        assert_eq!(burst_rate(110.0, 2048, 5.19), 110.0);
        // No floor: the path rate at any run length.
        assert_eq!(burst_rate(110.0, 32, 0.0), 110.0);
    }
}
