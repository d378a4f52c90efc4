//! torch_npu's storage formats as DeepSeek-V4's and GLM-4.5's tests prepare NZ weights: the
//! `allow_internal_format` setting the session keeps, `torch_npu.Format`'s ACL values, and a cast
//! that keeps the values and remembers its format for `get_npu_format`.

use tilelab::session::Session;

#[test]
fn a_format_cast_keeps_the_values_and_remembers_the_format() {
    let mut session = Session::new();
    let result = session.run_cell(
        "import torch, torch_npu\nprint(torch.npu.config.allow_internal_format)\n\
         torch_npu.npu.config.allow_internal_format = True\n\
         print(torch.npu.config.allow_internal_format, torch_npu.Format.FRACTAL_NZ, torch_npu.Format.ND)\n\
         w = torch.randn(32, 16, dtype=torch.bfloat16)\n\
         w_nz = torch_npu.npu_format_cast(w.npu().contiguous(), torch_npu.Format.FRACTAL_NZ)\n\
         print(torch_npu.get_npu_format(w), torch_npu.get_npu_format(w_nz), torch.equal(w, w_nz), list(w_nz.shape), w_nz.dtype)\n",
    );
    assert!(result.is_ok(), "{:?}", result.error());
    assert_eq!(result.stdout, "False\nTrue 29 2\n2 29 True [32, 16] torch.bfloat16\n");
    let result = session.run_cell("torch_npu.npu_format_cast(w, 7)\n");
    let error = result.error().expect("7 is not a torch_npu format");
    assert!(error.message.contains("acl_format") && error.message.contains("torch_npu.Format"), "{}", error.message);
}
