//! `set_cube_tile_shapes` checks its L0 sizes against the fractal of the chip in use (read from its
//! L0A/L0B alignment: 512 bytes of 16-bit values is a 16×16 fractal), not a constant of the language.
//! K and N tiles must fill fractals; M is padded to them (see tests/npu/kernel_forms_decode.rs).

use tilelab::session::Session;

const KERNEL: &str = "@pt.frontend.jit\ndef mm(a, b, out):\n    pt.set_cube_tile_shapes([16, 16], [8, 16], [16, 32])\n    out[:] = pt.matmul(a, b, pt.DT_FP32)\n\
    a = pt.randn([16, 16], dtype=pt.DT_FP16)\nb = pt.randn([16, 16], dtype=pt.DT_FP16)\nout = pt.zeros([16, 16])\nmm(a, b, out)";

#[test]
fn a_k_tile_of_8_is_refused_on_ascend_with_the_fractal_named() {
    let mut session = Session::new();
    let result = session.run_cell(&format!("import pypto as pt\n{KERNEL}"));
    let error = result.error().expect("an 8-deep L0 tile is not a multiple of the 16×16 fractal");
    assert!(error.message.contains("a multiple of 16"), "{error:?}");
    assert!(error.help.as_deref().unwrap_or("").contains("16×16 fractals"), "{error:?}");
}

#[test]
fn a_chip_with_8x8_fractals_accepts_it() {
    // L0A/L0B alignment 128 bytes = 64 16-bit values: an 8×8 fractal.
    let mut session = Session::new();
    let setup = "import pypto as pt\nsettings = pt.npu.config()\nsettings['name'] = 'small-fractal'\n\
                 settings['l0ab_alignment'] = 128\npt.npu.use(settings)";
    assert!(session.run_cell(setup).is_ok());
    let result = session.run_cell(KERNEL);
    assert!(result.error().is_none_or(|error| !error.message.contains("set_cube_tile_shapes")), "{:?}", result.error());
}
