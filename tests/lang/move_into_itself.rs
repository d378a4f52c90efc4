//! `out.move(value)` where the value is in `out`'s own buffer (a cache updated in place and then
//! moved back into itself, as DeepSeek-V3.2's indexer kernel does): the copy reads the value
//! before it writes, so the values are the value's.

use tilelab::session::Session;

#[test]
fn moving_a_tensor_into_itself_keeps_its_values() {
    // x = [0, 1, 2, 3] (int64, as pypto.arange of ints); x.move(x) copies x onto itself, which changes nothing.
    let mut session = Session::new();
    let result = session.run_cell("import pypto\nx = pypto.arange(4)\nx.move(x)\nprint(x.tolist())");
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "[0, 1, 2, 3]\n");
}
