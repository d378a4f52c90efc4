//! torch's devices: `tensor.device` is a `torch.device` with `.type` and `.index`, printed as torch
//! prints it, and a tensor reports the device torch would give it. Expected outputs are what torch
//! (with torch_npu, whose accelerator is "npu") prints for the same lines.

use tilelab::session::Session;

/// What the cell `code` prints after its imports.
fn printed(code: &str) -> String {
    super::cell_output::printed(&format!("import torch\n{code}"))
}

#[test]
fn a_new_tensor_is_on_the_cpu_and_a_moved_one_on_npu_zero() {
    // torch: a tensor made without device= is on the CPU, whose device has no index; `.npu()`
    // copies it to the current NPU (0) and leaves the original where it was.
    let code = "x = torch.zeros(2)\nprint(x.device, repr(x.device), x.device.type, x.device.index)\n\
                y = x.npu()\nprint(y.device, repr(y.device), y.device.type, y.device.index, x.device)";
    assert_eq!(printed(code), "cpu device(type='cpu') cpu None\nnpu:0 device(type='npu', index=0) npu 0 cpu\n");
}

#[test]
fn results_keep_their_inputs_device_and_device_arguments_place_them() {
    // Operations, reductions and indexing of an NPU tensor give NPU tensors; `.cpu()` brings one
    // back; `device=` (a string like f"{x.device}" or a device) and `*_like` place new tensors.
    let code = "z = torch.ones(3, device='npu:0')\nprint(z.device, (z + 1).device, (z * 2 + 1).device, z.sum().device, z[0].device, z.cpu().device)\n\
                w = torch.empty([2], dtype=z.dtype, device=f'{z.device}')\n\
                print(w.device, torch.zeros_like(z).device, torch.zeros(1).to(z.device).device, z.to('cpu').device, z.to(torch.float16).device)";
    assert_eq!(printed(code), "npu:0 npu:0 npu:0 npu:0 npu:0 cpu\nnpu:0 npu:0 npu:0 cpu npu:0\n");
}

#[test]
fn torch_device_objects_compare_with_devices_not_strings() {
    // torch.device("npu", 1) is npu:1; devices are equal when type and index are; a device is never
    // equal to a str (torch's __eq__ returns NotImplemented for one), so code compares `.type`.
    let code =
        "d = torch.device('npu', 1)\nprint(d, repr(d), d == torch.device('npu:1'), d == 'npu:1', d != 'npu:1')\n\
                print(torch.device('cpu').index, torch.ones(1).device.type == 'cpu', torch.device('cuda'))";
    assert_eq!(printed(code), "npu:1 device(type='npu', index=1) True False True\nNone True cuda\n");
}

#[test]
fn an_unknown_device_type_is_an_error_that_lists_the_known_ones() {
    let mut session = Session::new();
    let result = session.run_cell("import torch\ntorch.device('gpu')");
    let diagnostic = result.error().expect("an error");
    assert!(diagnostic.message.contains("'cpu', 'npu'"), "{}", diagnostic.message);
    assert!(diagnostic.message.contains("'gpu'"), "{}", diagnostic.message);
}

#[test]
fn a_moved_tensor_is_a_copy_as_in_torch() {
    // torch's `.npu()` of a CPU tensor copies it: writing into the copy leaves the original.
    let code = "x = torch.zeros(3)\ny = x.npu()\ny[0] = 9.0\nprint(x.tolist(), y.tolist(), y.cpu() is y, y.npu() is y)";
    assert_eq!(printed(code), "[0.0, 0.0, 0.0] [9.0, 0.0, 0.0] False True\n");
}

#[test]
fn an_int_device_is_that_npu() {
    // With torch_npu, `device=0` (pypto's tests pass the device id) is npu:0; `.to(1)` moves to npu:1.
    let code = "x = torch.randn(2, 3, device=0)\nprint(x.device, x.to(1).device, torch.device('cpu') == x.device)";
    assert_eq!(printed(code), "npu:0 npu:1 False\n");
}
