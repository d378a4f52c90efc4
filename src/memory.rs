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

/// Blocks of at least this many bytes start on a cache line.
const LINE_ALIGNED_FROM: usize = 4096;
/// A host cache line.
const LINE: usize = 64;

/// The layout the system allocator is asked for: a large block (a tensor's buffer) aligned to a
/// cache line. wasm's allocator (dlmalloc) aligns blocks to 8 bytes only, so half of the buffers
/// started mid-way into a 16-byte vector and every fourth f32x4 load of them straddled two cache
/// lines: a plain wasm loop reading 4 MiB took 84 GB/s from such a buffer against 96 from an
/// aligned one (node, this machine).
fn system_layout(layout: Layout) -> Layout {
    if layout.size() >= LINE_ALIGNED_FROM && layout.align() < LINE {
        Layout::from_size_align(layout.size(), LINE).unwrap_or(layout)
    } else {
        layout
    }
}

// SAFETY: every method forwards to `System` with the layout of `system_layout`, the same for a
// block's allocation and its release (a function of the caller's layout); counting has no effect
// on the blocks themselves.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let block = System.alloc(system_layout(layout));
        if !block.is_null() {
            add(layout.size() as isize);
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let block = System.alloc_zeroed(system_layout(layout));
        if !block.is_null() {
            add(layout.size() as isize);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        System.dealloc(block, system_layout(layout));
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees that `new_size`, rounded up to `layout.align()`, fits isize.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let (old_system, new_system) = (system_layout(layout), system_layout(new_layout));
        let moved = if old_system.align() == new_system.align() {
            System.realloc(block, old_system, new_size)
        } else {
            // Across the threshold the system layouts differ in alignment: a new block, the
            // contents copied, the old one freed.
            let moved = System.alloc(new_system);
            if !moved.is_null() {
                std::ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                System.dealloc(block, old_system);
            }
            moved
        };
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
/// 4.1 → 5.9–6.0 M events per second with this). One arena for every thread: the CLI runs the
/// notebook on a thread of its own (the watchdog's), whose arena would be a chain of 64 MiB heaps
/// that glibc unmaps as soon as one is empty, whatever the trim threshold, so that the next tensor
/// of tens of MB faulted its pages in again (example 14, ten alternating runs: 91–145 k page faults
/// and a median of 677 ms of CPU time with an arena per thread, 68–77 k and 653 ms with one). Must
/// run before the process starts a thread. The CLI and the native benchmarks call it at start; a
/// library user's process keeps its own allocator settings.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets parameters of glibc's allocator; every value is in range.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_ARENA_MAX, 1);
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

    /// Large blocks start on a cache line, also after growing past the threshold, and keep their
    /// contents through growing past it and shrinking below it.
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
    #[cfg_attr(not(target_arch = "wasm32"), test)]
    fn large_blocks_start_on_a_cache_line() {
        let line_offset = |values: &Vec<f32>| values.as_ptr() as usize % LINE;
        for count in [1024, 1025, 4096, 100_000] {
            let values: Vec<f32> = std::hint::black_box(vec![1.5; count]);
            assert_eq!(line_offset(&values), 0, "{count} f32");
        }
        let mut values: Vec<f32> = (0..100).map(|i| i as f32).collect();
        values.reserve_exact(5000);
        assert_eq!(line_offset(&values), 0, "grown past the threshold");
        assert!(values.iter().enumerate().all(|(i, &x)| x == i as f32));
        values.extend((100..6000).map(|i| i as f32));
        values.shrink_to(200);
        values.truncate(200);
        values.shrink_to_fit();
        assert!(values.iter().enumerate().all(|(i, &x)| x == i as f32), "shrunk below the threshold");
    }
}
