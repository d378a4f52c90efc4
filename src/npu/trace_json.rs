//! A trace as Chrome Trace Event JSON (Perfetto and chrome://tracing open it; the page's trace view
//! reads it). Written straight into one string: a notebook's kernels make tens of thousands of
//! events, and building a JSON value per event (two maps of string keys each) before writing it
//! took a fifth of example 14's run. The text is what `serde_json` writes for the same values: keys
//! in sorted order, numbers as it formats them (`tests/npu/trace.rs` holds it to that).

use std::io::Write;

use super::trace::{core_name, Trace};
use crate::tile::Pipe;

impl Trace {
    /// The trace as Chrome Trace Event JSON: complete ("X") events plus process/thread names.
    pub fn to_chrome_json(&self) -> String {
        let per_microsecond = self.clock_mhz;
        let mut text: Vec<u8> = Vec::with_capacity(64 + self.events.len() * 200);
        text.extend_from_slice("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[".as_bytes());
        let mut first = true;
        let mut separate = |text: &mut Vec<u8>| {
            if !std::mem::take(&mut first) {
                text.push(b',');
            }
        };
        for (core, kind) in self.core_kinds.iter().enumerate() {
            separate(&mut text);
            text.extend_from_slice("{\"args\":{\"name\":".as_bytes());
            push_string(&mut text, &core_name(core, *kind));
            let _ = write!(text, "}},\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{core}}}");
            separate(&mut text);
            let _ = write!(
                text,
                "{{\"args\":{{\"sort_index\":{core}}},\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{core}}}"
            );
            for pipe in Pipe::ALL {
                separate(&mut text);
                text.extend_from_slice("{\"args\":{\"name\":".as_bytes());
                push_string(&mut text, pipe.name());
                let _ =
                    write!(text, "}},\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{core},\"tid\":{}}}", pipe.index());
            }
        }
        for event in &self.events {
            separate(&mut text);
            let _ = write!(text, "{{\"args\":{{\"bytes\":{},\"end_cycle\":", event.bytes);
            push_number(&mut text, event.end);
            let _ = write!(text, ",\"flops\":{},\"line\":", event.flops);
            match event.source_line {
                Some(line) => {
                    let _ = write!(text, "{line}");
                }
                None => text.extend_from_slice("null".as_bytes()),
            }
            text.extend_from_slice(",\"start_cycle\":".as_bytes());
            push_number(&mut text, event.start);
            text.extend_from_slice(",\"tile\":".as_bytes());
            push_string(&mut text, self.tile(event));
            text.extend_from_slice("},\"cat\":".as_bytes());
            push_string(&mut text, event.pipe.name());
            text.extend_from_slice(",\"dur\":".as_bytes());
            push_number(&mut text, (event.end - event.start) / per_microsecond);
            text.extend_from_slice(",\"name\":".as_bytes());
            push_string(&mut text, event.op);
            let _ = write!(text, ",\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":", event.core, event.pipe.index());
            push_number(&mut text, event.start / per_microsecond);
            text.push(b'}');
        }
        text.extend_from_slice("]}".as_bytes());
        // Only JSON text and `serde_json`'s output went in: UTF-8 throughout.
        String::from_utf8(text).unwrap_or_default()
    }
}

/// A JSON string, escaped as `serde_json` escapes it.
fn push_string(text: &mut Vec<u8>, value: &str) {
    let _ = serde_json::to_writer(&mut *text, value);
}

/// A number as `serde_json` writes an `f64` (`null` when not finite).
fn push_number(text: &mut Vec<u8>, value: f64) {
    let _ = serde_json::to_writer(&mut *text, &value);
}
