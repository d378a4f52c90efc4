//! Custom NPU presets from JSON (a file for `tilelab run --npu FILE.json`, a dict or JSON text for
//! `pypto.npu.use`): every field checked for its type and a plausible range, by name, before the
//! configuration is built in one step. A zero or negative clock, a 1e18-byte buffer, a missing or
//! unknown field is an error that names the field, never a simulator that overflows later.

use serde_json::{Map, Value};

use super::config::NpuConfig;
use super::error::{NpuError, Result};
use crate::messages::ConfigDetail;

/// What a field holds and the values it may take.
#[derive(Clone, Copy)]
enum FieldKind {
    /// Text of 1 to 64 characters.
    Name,
    /// `"Split"` or `"Coupled"`.
    Architecture,
    /// An integer from `min` to `max`.
    Integer { min: u64, max: u64 },
    /// A power of two up to `max`.
    PowerOfTwo { max: u64 },
    /// A finite number above 0 and at most `max`.
    Rate { max: f64 },
    /// A finite number from 0 to `max` (cycles that may be fractional).
    Cycles { max: f64 },
}

const BYTES: FieldKind = FieldKind::Integer { min: 1, max: 1 << 40 };
const BANDWIDTH: FieldKind = FieldKind::Rate { max: 1e6 };
const LATENCY: FieldKind = FieldKind::Integer { min: 0, max: 1_000_000 };
const CORES: FieldKind = FieldKind::Integer { min: 1, max: 1024 };
const ALIGNMENT: FieldKind = FieldKind::PowerOfTwo { max: 1 << 16 };

/// Every field of `NpuConfig`, in its order, with its rule.
const FIELDS: [(&str, FieldKind); 35] = [
    ("name", FieldKind::Name),
    ("architecture", FieldKind::Architecture),
    ("cube_cores", CORES),
    ("vector_cores", CORES),
    ("clock_mhz", FieldKind::Rate { max: 100_000.0 }),
    ("ub_bytes", BYTES),
    ("l1_bytes", BYTES),
    ("l0a_bytes", BYTES),
    ("l0b_bytes", BYTES),
    ("l0c_bytes", BYTES),
    ("l2_bytes", BYTES),
    ("gm_to_l1_bytes_per_cycle", BANDWIDTH),
    ("gm_to_ub_bytes_per_cycle", BANDWIDTH),
    ("l1_to_l0a_bytes_per_cycle", BANDWIDTH),
    ("l1_to_l0b_bytes_per_cycle", BANDWIDTH),
    ("l0c_to_gm_bytes_per_cycle", BANDWIDTH),
    ("l0c_to_ub_bytes_per_cycle", BANDWIDTH),
    ("ub_to_gm_bytes_per_cycle", BANDWIDTH),
    ("hbm_bytes_per_cycle", BANDWIDTH),
    ("hbm_core_bytes_per_cycle", BANDWIDTH),
    ("l2_bytes_per_cycle", BANDWIDTH),
    ("launch_cycles", LATENCY),
    ("l2_line_bytes", FieldKind::PowerOfTwo { max: 1 << 16 }),
    ("gm_startup_cycles", LATENCY),
    ("gm_issue_cycles", LATENCY),
    ("gm_to_l1_burst_cycles", FieldKind::Cycles { max: 1_000_000.0 }),
    ("gm_to_ub_burst_cycles", FieldKind::Cycles { max: 1_000_000.0 }),
    ("local_startup_cycles", LATENCY),
    ("cube_macs_per_cycle", FieldKind::Integer { min: 1, max: 1 << 20 }),
    ("vector_bytes_per_cycle", BANDWIDTH),
    ("vector_startup_cycles", LATENCY),
    ("ub_alignment", ALIGNMENT),
    ("l1_alignment", ALIGNMENT),
    ("l0ab_alignment", ALIGNMENT),
    ("l0c_alignment", ALIGNMENT),
];

/// Builds a custom preset from JSON text (an object with every field of `NpuConfig`).
pub fn custom_preset_from_json(text: &str) -> Result<NpuConfig> {
    let value: Value = serde_json::from_str(text)
        .map_err(|error| NpuError::BadConfig { field: "(json)".into(), detail: ConfigDetail::not_json(&error) })?;
    custom_preset(&value)
}

/// Builds a custom preset from a JSON value (an object with every field of `NpuConfig`).
pub fn custom_preset(value: &Value) -> Result<NpuConfig> {
    let bad = |field: &str, detail: ConfigDetail| NpuError::BadConfig { field: field.to_string(), detail };
    let Some(object) = value.as_object() else {
        return Err(bad("(json)", ConfigDetail::NotAnObject));
    };
    let known = &FIELDS;
    if let Some(unknown) = object.keys().find(|key| !known.iter().any(|(name, _)| name == key)) {
        return Err(bad(unknown, ConfigDetail::UnknownField));
    }
    for (field, kind) in known {
        let Some(item) = object.get(*field) else {
            return Err(bad(field, ConfigDetail::MissingField));
        };
        check_field(field, *kind, item)?;
    }
    let config: NpuConfig = serde_json::from_value(Value::Object(normalized(object)))
        .map_err(|error| bad("(json)", ConfigDetail::Decoder { text: error.to_string() }))?;
    // The rules between fields (a coupled chip's core counts) are the preset table's own.
    NpuConfig::from_json(
        &serde_json::to_string(&config)
            .map_err(|error| bad("(json)", ConfigDetail::Decoder { text: error.to_string() }))?,
    )
}

fn check_field(field: &str, kind: FieldKind, item: &Value) -> Result<()> {
    let bad = |detail: ConfigDetail| Err(NpuError::BadConfig { field: field.to_string(), detail });
    match kind {
        FieldKind::Name => match item.as_str() {
            Some(text) if !text.trim().is_empty() && text.chars().count() <= 64 => Ok(()),
            _ => bad(ConfigDetail::Name { got: item.to_string() }),
        },
        FieldKind::Architecture => match item.as_str() {
            Some("Split" | "Coupled") => Ok(()),
            _ => bad(ConfigDetail::Architecture { got: item.to_string() }),
        },
        FieldKind::Integer { min, max } => match whole_number(item) {
            Some(number) if (min..=max).contains(&number) => Ok(()),
            _ => bad(ConfigDetail::WholeNumber { min, max, got: item.to_string() }),
        },
        FieldKind::PowerOfTwo { max } => match whole_number(item) {
            Some(number) if number.is_power_of_two() && number <= max => Ok(()),
            _ => bad(ConfigDetail::PowerOfTwoUpTo { max, got: item.to_string() }),
        },
        FieldKind::Rate { max } => match item.as_f64() {
            Some(number) if number.is_finite() && number > 0.0 && number <= max => Ok(()),
            _ => bad(ConfigDetail::Rate { max: max.to_string(), got: item.to_string() }),
        },
        FieldKind::Cycles { max } => match item.as_f64() {
            Some(number) if number.is_finite() && (0.0..=max).contains(&number) => Ok(()),
            _ => bad(ConfigDetail::Cycles { max: max.to_string(), got: item.to_string() }),
        },
    }
}

/// An integer field's value: a JSON integer, or a float with no fraction (`65536.0`, as a script's
/// dict may hold).
fn whole_number(item: &Value) -> Option<u64> {
    item.as_u64().or_else(|| {
        let number = item.as_f64()?;
        (number.fract() == 0.0 && (0.0..9.0e15).contains(&number)).then_some(number as u64)
    })
}

/// The object with integer fields written as integers (so `NpuConfig` deserializes them).
fn normalized(object: &Map<String, Value>) -> Map<String, Value> {
    let integer = |kind: &FieldKind| matches!(kind, FieldKind::Integer { .. } | FieldKind::PowerOfTwo { .. });
    object
        .iter()
        .map(|(key, item)| {
            let is_integer = FIELDS.iter().any(|(name, kind)| name == key && integer(kind));
            let item = match (is_integer, whole_number(item)) {
                (true, Some(number)) => Value::from(number),
                _ => item.clone(),
            };
            (key.clone(), item)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teaching() -> Value {
        serde_json::to_value(NpuConfig::preset("teaching").unwrap()).unwrap()
    }

    #[test]
    fn the_field_table_names_every_field_of_the_config() {
        let preset = teaching();
        let names: Vec<&String> = preset.as_object().unwrap().keys().collect();
        assert_eq!(names.len(), FIELDS.len());
        for name in names {
            assert!(FIELDS.iter().any(|(field, _)| field == name), "{name}");
        }
    }

    #[test]
    fn a_preset_written_out_reads_back() {
        let mut value = teaching();
        value["name"] = Value::from("mine");
        value["ub_bytes"] = Value::from(65536.0);
        let config = custom_preset(&value).unwrap();
        assert_eq!((config.name.as_str(), config.ub_bytes), ("mine", 65536));
    }

    #[test]
    fn bad_fields_are_named() {
        let cases: [(&str, Value); 8] = [
            ("clock_mhz", Value::from(0.0)),
            ("clock_mhz", Value::from(-1.0)),
            ("hbm_bytes_per_cycle", Value::from(-5)),
            ("ub_bytes", Value::from(1e18)),
            ("ub_bytes", Value::from(0)),
            ("cube_cores", Value::from(3.5)),
            ("l0c_alignment", Value::from(48)),
            ("architecture", Value::from("Fused")),
        ];
        for (field, bad) in cases {
            let mut value = teaching();
            value[field] = bad.clone();
            match custom_preset(&value) {
                Err(NpuError::BadConfig { field: named, .. }) => assert_eq!(named, field, "{bad}"),
                other => panic!("{field} = {bad}: {other:?}"),
            }
        }
        let mut value = teaching();
        value.as_object_mut().unwrap().remove("l2_bytes");
        assert!(matches!(custom_preset(&value), Err(NpuError::BadConfig { field, .. }) if field == "l2_bytes"));
        value["l2_bytes"] = Value::from(1 << 20);
        value["l3_bytes"] = Value::from(1 << 20);
        assert!(matches!(custom_preset(&value), Err(NpuError::BadConfig { field, .. }) if field == "l3_bytes"));
        assert!(
            matches!(custom_preset_from_json("[1, 2]"), Err(NpuError::BadConfig { field, .. }) if field == "(json)")
        );
    }
}
