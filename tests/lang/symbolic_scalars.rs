#![cfg(not(target_arch = "wasm32"))]
//! pypto's symbolic scalars as real kernels use them: a value read from an integer tensor inside a
//! kernel (`act_seq_len[b_idx + 1] - act_seq_len[b_idx]`, qwen3_next's gated delta rule) is a
//! scalar that bounds a loop and takes `.min`; `pypto.SymbolicScalar`'s forms (an int, a named
//! symbol with or without a value, deepseek_v4's compressor flag) and the methods pypto documents.
//! Expected values are computed by hand in the comments.

use tilelab::session::Session;

use super::cell_output::{run, stdout};

fn error(session: &mut Session, code: &str) -> (String, Option<String>) {
    let result = session.run_cell(code);
    let error = result.error().unwrap_or_else(|| panic!("expected an error from {code}"));
    (error.message.clone(), error.help.clone())
}

/// Two sequences of 5 and 7 rows (cumulative lengths [0, 5, 12]) in chunks of L = 4, as the gated
/// delta rule walks them: chunk `s_idx` of sequence `b` covers rows `ofs + s_idx ..` with
/// `actual = (s - s_idx).min(L)` valid rows, and writes x · (s_idx + 1) there.
const CHUNKED: &str = r#"import pypto

@pypto.frontend.jit()
def chunked(x: pypto.Tensor([12, 8], pypto.DT_FP32), act_seq_len: pypto.Tensor([3], pypto.DT_INT32),
            out: pypto.Tensor([12, 8], pypto.DT_FP32)):
    l = 4
    pypto.set_vec_tile_shapes(4, 8)
    for b_idx in pypto.loop(2, name="LOOP_B", idx_name="b_idx"):
        s = act_seq_len[b_idx + 1] - act_seq_len[b_idx]
        b_ofs = act_seq_len[b_idx]
        for s_idx in pypto.loop(0, s, l, name="LOOP_S", idx_name="s_idx"):
            actual_l = (s - s_idx).min(l)
            tile = pypto.view(x, [l, 8], [b_ofs + s_idx, 0], valid_shape=[actual_l, 8])
            pypto.assemble(tile * (s_idx + 1), [b_ofs + s_idx, 0], out)
            seen.append((type(s).__name__, s, s_idx, actual_l))

seen = []
x = pypto.ones([12, 8])
lengths = pypto.as_tensor([0, 5, 12], dtype=pypto.DT_INT32)
out = pypto.zeros([12, 8])
chunked(x, lengths, out)
"#;

#[test]
fn a_value_read_from_an_int_tensor_in_a_kernel_is_a_scalar_that_bounds_loops_and_takes_min() {
    let mut session = Session::new();
    run(&mut session, CHUNKED);
    // Sequence 0: s = 5, chunks at 0 (min(5, 4) = 4 rows) and 4 (min(1, 4) = 1 row); sequence 1:
    // s = 12 - 5 = 7, chunks at 0 (4 rows) and 4 (min(3, 4) = 3 rows).
    assert_eq!(
        stdout(&mut session, "print(seen)"),
        "[('int', 5, 0, 4), ('int', 5, 4, 1), ('int', 7, 0, 4), ('int', 7, 4, 3)]"
    );
    // Rows 0-3 and 5-8 are first chunks (x · 1); rows 4 and 9-11 second chunks (x · 5). With four
    // valid rows in every chunk, row 4's chunk would write rows 4-7 and the last chunk would run
    // past row 11.
    assert_eq!(
        stdout(&mut session, "print(out[:, 0].tolist())"),
        "[1.0, 1.0, 1.0, 1.0, 5.0, 1.0, 1.0, 1.0, 1.0, 5.0, 5.0, 5.0]"
    );
}

#[test]
fn only_a_full_int_index_of_an_integer_tensor_in_a_kernel_reads_a_scalar() {
    let mut session = Session::new();
    let code = r#"import pypto

@pypto.frontend.jit()
def kinds(t: pypto.Tensor([2, 3], pypto.DT_INT32), f: pypto.Tensor([2, 3], pypto.DT_FP32),
          out: pypto.Tensor([2, 3], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 8)
    seen.append((t[1, -1], type(t[0]).__name__, type(f[1, 2]).__name__))
    out[:] = f

seen = []
t = pypto.as_tensor([[1, 2, 3], [4, 5, 6]], dtype=pypto.DT_INT32)
kinds(t, pypto.ones([2, 3]), pypto.zeros([2, 3]))
print(seen, type(t[1, 2]).__name__)
"#;
    // t[1, -1] = 6 (the last of row 1) as an int; a row of it, a float tensor's element, and the
    // host's index (torch's 0-d tensor) stay tensors.
    assert_eq!(stdout(&mut session, code), "[(6, 'Tensor', 'Tensor')] Tensor");
    let bad = "@pypto.frontend.jit()\ndef past(t: pypto.Tensor([2, 3], pypto.DT_INT32), out: pypto.Tensor([2, 3], pypto.DT_INT32)):\n    n = t[2, 0]\npast(t, t)";
    let (message, _) = error(&mut session, bad);
    // Row 2 of a 2-row tensor, and column -4 of 3, are past the edge.
    assert!(message.contains("index 2 is out of range for dim 0 of size 2"), "{message}");
    let bad = "@pypto.frontend.jit()\ndef before(t: pypto.Tensor([2, 3], pypto.DT_INT32), out: pypto.Tensor([2, 3], pypto.DT_INT32)):\n    n = t[0, -4]\nbefore(t, t)";
    let (message, _) = error(&mut session, bad);
    assert!(message.contains("index -4 is out of range for dim 1 of size 3"), "{message}");
}

#[test]
fn symbolic_scalar_forms_follow_pypto_and_an_unbound_name_reads_zero_with_a_warning() {
    let mut session = Session::new();
    run(&mut session, "import pypto");
    let code = "print(pypto.SymbolicScalar(7), pypto.SymbolicScalar(True), pypto.SymbolicScalar(value=3), pypto.SymbolicScalar(\"n\", 5) + 1, pypto.symbolic_scalar(pypto.SymbolicScalar(4)))";
    assert_eq!(stdout(&mut session, code), "7 1 3 6 4");
    let result = run(&mut session, "flag = pypto.SymbolicScalar(\"is_compress\") + 1\nprint(flag)");
    // pypto's runtime symbol table starts zeroed: 0 + 1.
    assert_eq!(result.stdout.trim(), "1");
    let warnings: Vec<_> = result.diagnostics.iter().filter(|d| d.code == "lang/unbound-symbol").collect();
    assert_eq!(warnings.len(), 1, "{:?}", result.diagnostics);
    assert!(warnings[0].message.contains("pypto.SymbolicScalar('is_compress') reads 0"), "{}", warnings[0].message);
    let (message, _) = error(&mut session, "pypto.SymbolicScalar(1.5)");
    assert!(message.contains("expected an int, not float"), "{message}");
    let (message, _) = error(&mut session, "pypto.SymbolicScalar(3, 4)");
    assert!(message.contains("expected a str, not int") || message.contains("not int"), "{message}");
    let (message, _) = error(&mut session, "pypto.SymbolicScalar()");
    assert!(message.contains("name"), "{message}");
}

#[test]
fn symbolic_scalar_methods_are_those_pypto_documents() {
    let mut session = Session::new();
    run(&mut session, "import pypto\ns = pypto.SymbolicScalar(10)");
    // pypto's docs: SymbolicScalar(10).min(5) = 5, .max(13) = 13, concrete() = 10; an immediate is
    // concrete and immediate, neither a symbol nor an expression.
    let code = "print(s.min(5), s.max(13), s.min(pypto.SymbolicScalar(5)), s.concrete(), s.is_concrete(), s.is_immediate(), s.is_symbol(), s.is_expression(), s.simplify(), s.as_variable())";
    assert_eq!(stdout(&mut session, code), "5 13 5 10 True True False False 10 None");
    let (message, _) = error(&mut session, "s.min(pypto.ones([2]))");
    assert!(message.contains("pypto.min takes two scalars, not int and Tensor"), "{message}");
    let (message, _) = error(&mut session, "s.bit_length()");
    assert!(message.contains("bit_length"), "{message}");
}

/// deepseek_v4's compressor: a flag made `SymbolicScalar(0)` before the loops, rebound to
/// `SymbolicScalar("is_compress") + 1` in the branch that compresses, then `if is_compress > 0:`
/// gates the pass that only compression needs.
const FLAG: &str = r#"import pypto

@pypto.frontend.jit()
def gated(start: pypto.Tensor([4], pypto.DT_INT32), out: pypto.Tensor([1, 8], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 8)
    is_compress = pypto.SymbolicScalar(0)
    for c_idx in pypto.loop(4, name="LOOP", idx_name="c_idx"):
        start_pos = start[c_idx]
        if start_pos % 4 + 1 < 4:
            pass
        else:
            is_compress = pypto.SymbolicScalar("is_compress") + 1
    if is_compress > 0:
        out[:] = pypto.full([1, 8], 3.0, pypto.DT_FP32)
"#;

#[test]
fn a_flag_rebound_to_a_named_symbol_in_one_branch_gates_what_follows_the_loop() {
    let mut session = Session::new();
    run(&mut session, FLAG);
    // start % 4 + 1 < 4 for 0, 1, 2, 5, 6: no compression, the flag stays 0 and out stays 0.
    let none = "out = pypto.zeros([1, 8])\ngated(pypto.as_tensor([0, 1, 2, 5], dtype=pypto.DT_INT32), out)\nprint(out[0, 0].item())";
    assert_eq!(stdout(&mut session, none), "0.0");
    // 7 % 4 + 1 = 4: compression; the flag is 0 + 1 > 0 and the pass writes 3.
    let some = "out = pypto.zeros([1, 8])\ngated(pypto.as_tensor([0, 7, 2, 5], dtype=pypto.DT_INT32), out)\nprint(out[0, 0].item())";
    let result = run(&mut session, some);
    assert_eq!(result.stdout.trim(), "3.0");
    assert!(result.diagnostics.iter().any(|d| d.code == "lang/unbound-symbol"), "{:?}", result.diagnostics);
}
