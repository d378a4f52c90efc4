//! pypto's cost model output: a kernel run with `runtime_options={"run_mode": pypto.RunMode.SIM}`
//! leaves its swimlane (the schedule as a Chrome trace) in
//! `./output/output_<YYYYmmdd_HHMMSS_micros>_<pid>_<host>/CostModelSimulationOutput/merged_swimlane.json`,
//! one folder per run, as pypto's cost model does (its examples look for the file there). TileLab's
//! simulator is the cost model here: the file is the same trace `tilelab run --trace-out` writes. It is
//! written through the host's files (the CLI); the page has none, and shows the schedule instead.

use crate::lang::syntax::Span;
use crate::npu::Simulation;

use super::super::interpreter::Interpreter;
use super::super::value::{Kernel, Object, Value};
use super::spec::ApiObject;

/// The folder of this run's output, relative to the working directory, made at the first write.
pub(crate) fn output_folder(interpreter: &Interpreter) -> String {
    interpreter
        .npu
        .cost_model_folder
        .borrow_mut()
        .get_or_insert_with(|| {
            let seconds = super::super::host::seconds_since_epoch();
            format!("output/output_{}_{}_tilelab", timestamp(seconds), super::super::host::PROCESS_ID)
        })
        .clone()
}

/// Whether `kernel` runs in pypto's simulation mode (`run_mode` `RunMode.SIM`, or its value 1).
pub(crate) fn simulation_mode(kernel: &Kernel) -> bool {
    kernel.runtime_options.iter().any(|(key, value)| {
        key == "run_mode"
            && match value {
                Value::Object(object) => matches!(
                    &**object,
                    Object::Api(ApiObject::EnumMember { enumeration: "RunMode", member: "SIM", .. })
                ),
                Value::Int(value) => *value == 1,
                _ => false,
            }
    })
}

/// Writes the swimlane of a simulated call of `kernel` when it runs in simulation mode and the
/// host has files (the latest call's swimlane replaces the one before, as a file of the run).
pub(crate) fn write_swimlane(interpreter: &Interpreter, kernel: &Kernel, simulation: &Simulation, span: Span) {
    if !simulation_mode(kernel) || !interpreter.has_module_loader() {
        return;
    }
    let path = format!("{}/CostModelSimulationOutput/merged_swimlane.json", output_folder(interpreter));
    let json = simulation.trace.to_chrome_json();
    let written = interpreter.with_host_files(|files| files.write_file(&path, &json)).unwrap_or(Ok(()));
    if let Err(reason) = written {
        let message = crate::messages::NpuMessage::CostModelOutputNotWritten { path, reason };
        interpreter.warn_message("npu/cost-model-output", message.into(), span, None);
    }
}

/// `YYYYmmdd_HHMMSS_micros` of `seconds` since the epoch, UTC (pypto uses the local time; the
/// page and the CLI have no time zone in common).
fn timestamp(seconds: f64) -> String {
    let whole = seconds.max(0.0).floor() as i64;
    let micros = ((seconds.max(0.0) - whole as f64) * 1e6) as i64;
    let (days, of_day) = (whole.div_euclid(86_400), whole.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (of_day / 3600, of_day % 3600 / 60, of_day % 60);
    format!("{year:04}{month:02}{day:02}_{hour:02}{minute:02}{second:02}_{micros:06}")
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::timestamp;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        // Checked against `date -u -d @SECONDS +%Y%m%d_%H%M%S`.
        assert_eq!(timestamp(0.0), "19700101_000000_000000");
        assert_eq!(timestamp(951_782_400.25), "20000229_000000_250000");
        assert_eq!(timestamp(1_796_380_245.5), "20261204_103045_500000");
    }
}
