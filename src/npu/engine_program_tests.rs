//! Tests of the prepared program: rows against the region walk, the window of steps.

use super::*;
use crate::tile::TensorId;

#[test]
fn rows_walk_the_same_ranges_as_the_region_walk() {
    // Every region of rank 1 and 2 (offsets and shapes on a small grid, empty ones included)
    // of f16 and f32 tensors: its rows give exactly `region_ranges_into`'s ranges; rank 3 is
    // left to the region walk.
    let (mut expected, mut walked) = (Vec::new(), Vec::new());
    for element_bytes in [2u64, 4] {
        for tensor_shape in [vec![12usize], vec![5, 12], vec![7, 1]] {
            let rank = tensor_shape.len();
            let extents = |dim: usize| 0..=tensor_shape[dim];
            let mut regions: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
            if rank == 1 {
                for offset in extents(0) {
                    regions.extend((0..=tensor_shape[0] - offset).map(|size| (vec![offset], vec![size])));
                }
            } else {
                for (row, column) in extents(0).flat_map(|row| extents(1).map(move |column| (row, column))) {
                    for rows in 0..=tensor_shape[0] - row {
                        for columns in 0..=tensor_shape[1] - column {
                            regions.push((vec![row, column], vec![rows, columns]));
                        }
                    }
                }
            }
            for (offsets, shape) in regions {
                region_ranges_into(&tensor_shape, element_bytes, &offsets, &shape, &mut expected);
                let region = GmRegion {
                    tensor: TensorId(0),
                    offsets: crate::tile::Dims::from(&*offsets),
                    shape: crate::tile::Dims::from(&*shape),
                };
                assert!(Walk::of(&region, &tensor_shape, element_bytes, 0).rows_into(&mut walked));
                assert_eq!(walked, expected, "{shape:?} at {offsets:?} of {tensor_shape:?}");
            }
        }
    }
    let region = GmRegion { tensor: TensorId(0), offsets: [0, 0, 0].into(), shape: [1, 2, 3].into() };
    assert!(!Walk::of(&region, &[2, 2, 3], 4, 0).rows_into(&mut walked));
}

#[test]
fn the_window_keeps_only_steps_from_the_earliest_head_on() {
    // 400 tiles of copy in, exp, copy out (three pipes, flags between them), run in program order
    // as a serial engine would: each instruction read as its queue's head, then finished. Every
    // step, its flags and its copy must be the instruction's after the window has dropped the
    // finished ones (indices stay the whole program's), and the window must stay a few chunks
    // long however long the program.
    use crate::tensor::{DType, UnaryOp};
    use crate::tile::{GmTensor, Memory, ProgramBuilder};
    let mut builder = ProgramBuilder::new();
    let tile = builder.buffer("x", Memory::Ub, &[16, 64], DType::F32);
    let region = |tensor: u32, tile_index: usize| GmRegion {
        tensor: TensorId(tensor),
        offsets: [tile_index % 4 * 16, 0].into(),
        shape: [16, 64].into(),
    };
    for tile_index in 0..400 {
        let (loaded, computed) = (builder.flag(), builder.flag());
        let copy_in = TileOp::CopyIn { source: region(0, tile_index), destination: tile };
        builder.push(copy_in, vec![], vec![loaded]).unwrap();
        let exp = TileOp::Unary { op: UnaryOp::Exp, input: tile, output: tile, valid_shape: [16, 64].into() };
        builder.push(exp, vec![loaded], vec![computed]).unwrap();
        let copy_out = TileOp::CopyOut { source: tile, destination: region(1, tile_index) };
        builder.push(copy_out, vec![computed], vec![]).unwrap();
    }
    let program = builder.finish();
    let tensor = |name: &str| GmTensor { name: name.into(), shape: vec![64, 64], dtype: DType::F32 };
    let plan = KernelPlan {
        name: "window".into(),
        tensors: vec![tensor("x"), tensor("y")],
        programs: vec![program],
        cross_core_flags: 0,
        single_buffered_from: None,
    };
    let (program, config) = (&plan.programs[0], NpuConfig::preset("teaching").unwrap());
    let mut counts = [0u32; 7];
    for instruction in &program.instructions {
        counts[instruction.pipe.index()] += 1;
    }
    let (mut labels, mut names) = (Vec::new(), Vec::new());
    let mut core = CoreProgram::new(program, counts, &mut labels);
    let mut heads = [END; 7];
    let mut longest = 0;
    for (index, instruction) in program.instructions.iter().enumerate() {
        if core.needs_preparing(headless(&heads)) {
            core.prepare_heads(&mut heads, &plan, program, &config, &mut names);
        }
        let pipe = instruction.pipe.index();
        assert_eq!(heads[pipe], index as u32, "instruction {index} heads its queue");
        let step = core.step(heads[pipe]);
        assert_eq!(step.instruction, index as u32);
        let ids = |flags: &[crate::tile::Flag]| flags.iter().map(|flag| flag.0).collect::<Vec<_>>();
        assert_eq!(core.waits(step), ids(&instruction.wait), "waits of {index}");
        assert_eq!(core.sets(step), ids(&instruction.set), "sets of {index}");
        match (&instruction.op, core.copy(step)) {
            (TileOp::CopyIn { source: region, .. } | TileOp::CopyOut { destination: region, .. }, Some(copy)) => {
                assert_eq!(copy.tensor, region.tensor.0, "copy of {index}");
            }
            (TileOp::Unary { .. }, None) => {}
            _ => panic!("instruction {index}: a copy where none is, or none where one is"),
        }
        longest = longest.max(core.steps.len()).max(core.flags.len() / 2).max(core.copies.len());
        heads[pipe] = step.next;
    }
    assert!(longest <= 4 * CHUNK, "a window of {longest} entries for 1200 instructions");
}
