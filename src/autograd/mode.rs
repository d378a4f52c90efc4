//! The gradient mode: a thread-local flag that says whether ops record themselves.

use std::cell::Cell;

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Whether ops currently record a graph when an input requires grad.
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(Cell::get)
}

/// Restores the previous gradient mode when dropped.
#[must_use = "the mode is restored when the guard is dropped"]
pub struct GradModeGuard {
    previous: bool,
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        GRAD_ENABLED.with(|flag| flag.set(self.previous));
    }
}

/// Turns recording off until the guard drops (`with pypto.no_grad():`).
pub fn no_grad() -> GradModeGuard {
    set_grad_enabled(false)
}

/// Turns recording on until the guard drops (used to recompute inside a backward).
pub fn enable_grad() -> GradModeGuard {
    set_grad_enabled(true)
}

/// Sets the mode until the guard drops.
pub fn set_grad_enabled(enabled: bool) -> GradModeGuard {
    let previous = GRAD_ENABLED.with(|flag| flag.replace(enabled));
    GradModeGuard { previous }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_nest_and_restore() {
        assert!(is_grad_enabled());
        {
            let _outer = no_grad();
            assert!(!is_grad_enabled());
            {
                let _inner = enable_grad();
                assert!(is_grad_enabled());
            }
            assert!(!is_grad_enabled());
        }
        assert!(is_grad_enabled());
    }
}
