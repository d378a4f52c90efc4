//! Live heap bytes per thread: the global allocator counts what each thread allocates and frees,
//! so a session can hold every live allocation (tensors, strings, lists, graph nodes, anything)
//! against one memory budget without each type keeping its own books.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting.
struct CountingAllocator;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

thread_local! {
    // Signed: a block freed on another thread than the one that allocated it counts there.
    static LIVE_BYTES: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    // `try_with`: during thread teardown the counter may already be gone; the count no longer matters.
    let _ = LIVE_BYTES.try_with(|live| live.set(live.get().wrapping_add(bytes)));
}

// SAFETY: every method forwards to `System` with the same arguments; counting has no effect on
// the blocks themselves.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = System.alloc(layout);
        if !block.is_null() {
            add(layout.size() as isize);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = System.alloc_zeroed(layout);
        if !block.is_null() {
            add(layout.size() as isize);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        System.dealloc(block, layout);
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = System.realloc(block, layout, new_size);
        if !moved.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        moved
    }
}

/// Keeps the memory a native process frees for its next allocations (glibc): blocks up to 32 MiB
/// come from the heap instead of their own mappings, and the heap's free top is not handed back
/// to the system after every large free. The simulator frees and allocates tens of MB per kernel
/// (its trace, the L2's line tables); returned to the system each time, every page came back as a
/// page fault on first touch: a third of the 4096³ GEMM's simulation (`cargo bench --bench npu`,
/// 4.1 → 5.9–6.0 M events per second with this). The CLI and the native benchmarks call it at start;
/// a library user's process keeps its own allocator settings.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets parameters of glibc's allocator; both values are in range.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

/// Bytes this thread has allocated and not yet freed (may be negative when other threads freed
/// this thread's blocks; compare two readings, not one against zero).
pub fn live_bytes() -> isize {
    LIVE_BYTES.try_with(Cell::get).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_block_counts_until_it_is_freed() {
        let before = live_bytes();
        // black_box: an optimised build may otherwise drop an allocation nothing reads.
        let block: Vec<u8> = std::hint::black_box(Vec::with_capacity(10 << 20));
        assert!(live_bytes() - before >= 10 << 20);
        drop(block);
        assert!(live_bytes() - before < 1 << 20);
    }
}
