//! Returned closures are freed when the script drops them (issue 19): a closure and the scope
//! of the call that made it reference each other, which reference counting alone never frees.
//! Measured with the session's counting allocator (`tilelab::memory::live_bytes`, per thread).

use tilelab::memory::live_bytes;
use tilelab::session::{Limits, Session};

const MIB: isize = 1 << 20;

/// Each closure keeps a 65536-element f32 tensor (256 KiB) in its scope; 10 000 of them are
/// 2.5 GiB if the scopes leak, far over this session's 64 MiB budget. The values read through
/// the closures are the loop's n: Σ n for n < 10 000 = 49 995 000.
#[test]
fn ten_thousand_dropped_closures_over_large_tensors_do_not_grow_memory() {
    let mut session = Session::with_limits(Limits { memory_bytes: 64 << 20, ..Limits::default() });
    let setup = r#"
import pypto

def make_reader(n):
    table = pypto.full([65536], float(n))
    def read():
        return table[0].item()
    return read

total = 0.0
"#;
    assert!(session.run_cell(setup).is_ok());
    let before = live_bytes();
    let result =
        session.run_cell("for n in range(10000):\n    reader = make_reader(n)\n    total += reader()\nprint(total)");
    assert_eq!(result.stdout, "49995000.0\n", "{:?}", result.error());
    assert!(session.run_cell("reader = None").is_ok());
    let grown = live_bytes() - before;
    assert!(grown < 8 * MIB, "the dropped closures still hold {} KiB", grown >> 10);
}

/// Closures that are still held keep working through collections (each of the 600 registrations
/// here may start one); once dropped, the next cell frees them.
#[test]
fn held_closures_survive_collection_and_dropped_ones_are_freed() {
    let mut session = Session::new();
    let setup = "import pypto\ndef make_scaled(k):\n    weights = pypto.full([16384], float(k))\n    scale = lambda x: x * k\n    return lambda: scale(weights[0].item())\n";
    assert!(session.run_cell(setup).is_ok());
    let before = live_bytes();
    // k * k for k < 600: Σ k² = 599 · 600 · 1199 / 6 = 71 820 100.
    let result = session.run_cell("kept = [make_scaled(k) for k in range(600)]\nprint(sum(f() for f in kept))");
    assert_eq!(result.stdout, "71820100.0\n", "{:?}", result.error());
    // 600 tensors of 64 KiB are held: about 37.5 MiB.
    assert!(live_bytes() - before > 30 * MIB);
    let result = session.run_cell("more = [make_scaled(1) for _ in range(600)]\nmore = None\nprint(kept[599]())");
    assert_eq!(result.stdout, "358801.0\n", "{:?}", result.error());
    assert!(session.run_cell("kept = None").is_ok());
    assert!(session.run_cell("pass").is_ok());
    let grown = live_bytes() - before;
    assert!(grown < 4 * MIB, "dropped closures still hold {} KiB", grown >> 10);
}

/// When the session ends, closures it still holds are freed with it (what LeakSanitizer reported).
#[test]
fn a_session_frees_its_closures_when_it_ends() {
    // A first session fills the caches the interpreter keeps for the whole process.
    let code = "import pypto\ndef make(n):\n    data = pypto.full([65536], float(n))\n    def get():\n        return data\n    return get\nkeep = [make(n) for n in range(64)]";
    drop(warm(code));
    let before = live_bytes();
    drop(warm(code));
    let grown = live_bytes() - before;
    assert!(grown < MIB, "a dropped session still holds {} KiB", grown >> 10);
}

fn warm(code: &str) -> Session {
    let mut session = Session::new();
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{:?}", result.error());
    session
}
