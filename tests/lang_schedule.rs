//! `pypto.npu.use/config` and `pypto.schedule`: the language driving the NPU simulator, checked
//! through the session as a user runs it. Expected figures are computed here from shapes and dtypes.

use tilelab::session::{Display, Session};

fn session_with(setup: &str) -> Session {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto as pt\n{setup}"));
    assert!(result.is_ok(), "setup failed: {:?}", result.error());
    session
}

fn printed(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout.trim_end().to_string()
}

#[test]
fn npu_use_validates_against_the_simulator_presets() {
    let mut session = session_with("");
    let result = session.run_cell("pt.npu.use('nope')");
    let error = result.error().expect("an unknown preset is an error");
    assert_eq!(error.code, "runtime/value-error");
    // The message lists every preset so the user can pick one.
    for preset in ["Ascend910B2", "Ascend910A", "teaching"] {
        assert!(error.message.contains(preset), "{}", error.message);
    }
    // Names are matched case-insensitively and stored in their canonical spelling.
    assert_eq!(printed(&mut session, "pt.npu.use('ascend910a')\nprint(pt.npu.config()['name'])"), "Ascend910A");
    assert!(session.set_npu_preset("nope").is_err());
    assert!(session.set_npu_preset("TEACHING").is_ok());
    assert_eq!(session.npu_preset(), "teaching");
}

#[test]
fn npu_config_lists_the_preset_parameters() {
    // DESIGN §3 table, teaching row: 2 coupled cores, 1.0 GHz, UB 16 KiB, L1 64 KiB, L0A/L0B 8 KiB, L0C 16 KiB.
    let mut session = session_with("pt.npu.use('teaching')\nc = pt.npu.config()");
    let text = printed(&mut session, "print(c['preset'], c['cube_cores'], c['vector_cores'], c['clock_mhz'], c['ub_bytes'], c['l1_bytes'], c['l0a_bytes'], c['l0b_bytes'], c['l0c_bytes'])");
    assert_eq!(text, format!("teaching 2 2 1000.0 {} {} {} {} {}", 16 * 1024, 64 * 1024, 8 * 1024, 8 * 1024, 16 * 1024));
    assert!(printed(&mut session, "print(c['hbm_bytes_per_cycle'] > 0, c['vector_bytes_per_cycle'] > 0)") == "True True");
    // 910B2: 24 cube + 48 vector cores at 1.8 GHz, UB 192 KiB.
    let text = printed(&mut session, "pt.npu.use('Ascend910B2')\nc = pt.npu.config()\nprint(c['cube_cores'], c['vector_cores'], c['clock_mhz'], c['ub_bytes'])");
    assert_eq!(text, format!("24 48 1800.0 {}", 192 * 1024));
}
