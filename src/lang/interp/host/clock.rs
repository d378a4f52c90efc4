//! The clocks of `time`: the wall clock and a monotonic one (in the browser, where `Instant` and
//! `SystemTime` do not exist, both come from `Date.now()`).

/// Seconds since the Unix epoch.
pub(crate) fn seconds_since_epoch() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() / 1000.0
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |elapsed| elapsed.as_secs_f64())
    }
}

/// Seconds from a clock that never goes back (its zero is arbitrary).
pub(crate) fn monotonic_seconds() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() / 1000.0
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        use std::time::Instant;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
}
