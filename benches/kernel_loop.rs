//! How a jit kernel's cost grows with its loop: one `pypto.loop` of N iterations, each loading a
//! row tile, adding a number and writing it back, for N = 10⁴, 2·10⁴, 4·10⁴ and 10⁵ (run through a
//! session: the reference pass, the capture, the compiler and the simulator). Linear growth shows
//! as a constant time per iteration. Run with `cargo bench --bench kernel_loop` (native only: it
//! reads the process CPU clock).

#![cfg_attr(target_arch = "wasm32", no_main)]
#![cfg(not(target_arch = "wasm32"))]

use tilelab::session::{CellStatus, Session};

/// CPU seconds of this process: on a shared machine wall time includes other people's work.
fn cpu_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

fn main() {
    // As the CLI does: freed memory stays in the process (`tilelab::memory::keep_freed_memory`).
    tilelab::memory::keep_freed_memory();
    for iterations in [10_000, 20_000, 40_000, 100_000] {
        let code = format!(
            "import pypto\n\
             @pypto.frontend.jit\n\
             def add_rows(x: pypto.Tensor, out: pypto.Tensor):\n\
             \x20   pypto.set_vec_tile_shapes(1, 16)\n\
             \x20   for i in pypto.loop({iterations}):\n\
             \x20       row = pypto.view(x, [1, 16], [i, 0])\n\
             \x20       out[i:i + 1, :] = row + 1.0\n\
             x = pypto.zeros([{iterations}, 16])\n\
             out = pypto.zeros([{iterations}, 16])\n\
             add_rows(x, out)\n\
             total = float(out.sum())\n"
        );
        let mut session = Session::new();
        let start = cpu_seconds();
        let result = session.run_cell(&code);
        let seconds = cpu_seconds() - start;
        assert!(matches!(result.status, CellStatus::Ok), "the kernel runs: {:?}", result.diagnostics);
        assert_eq!(result.kernel_schedules.len(), 1, "the kernel ran on the simulated NPU");
        println!(
            "jit loop of {iterations:>6} iterations: {:>6.2} s CPU, {:>5.1} µs per iteration",
            seconds,
            seconds / iterations as f64 * 1e6
        );
    }
}
