//! Robustness: mutated notebooks (characters deleted, inserted, lines swapped — multi-byte ones
//! included) never panic the session, and every diagnostic span lies on character boundaries inside
//! the source of the cell it names.

use tilelab::session::{Limits, Notebook, Session};

/// xorshift64*: a small deterministic generator so failures reproduce.
struct Generator(u64);

impl Generator {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

const INSERTS: [&str; 12] = ["张", "é", "（", ")", "[", ":", "\n", "    ", "x", "0", "pt.", "'"];

fn mutate(source: &str, generator: &mut Generator) -> String {
    let mut characters: Vec<String> = source.chars().map(String::from).collect();
    for _ in 0..1 + generator.below(4) {
        let position = generator.below(characters.len() + 1);
        match generator.below(3) {
            0 if position < characters.len() => {
                characters.remove(position);
            }
            1 => characters.insert(position, INSERTS[generator.below(INSERTS.len())].to_string()),
            _ => {
                let other = generator.below(characters.len().max(1));
                if position < characters.len() && other < characters.len() {
                    characters.swap(position, other);
                }
            }
        }
    }
    characters.concat()
}

fn check_all() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut sources = Vec::new();
    for entry in std::fs::read_dir(directory).expect("examples") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|ext| ext == "py") {
            let text = std::fs::read_to_string(&path).expect("read");
            let notebook = Notebook::from_py(&text).expect("notebook");
            sources.push(notebook.cells.iter().map(|cell| cell.source.clone()).collect::<Vec<_>>());
        }
    }
    let mut generator = Generator(0x9E37_79B9_7F4A_7C15);
    // Small tensors only: the point is spans and panics over mutated text, and the gallery's
    // full-size kernels (SwiGLU at M = 2200) would turn 600 rounds into minutes of matmuls.
    let limits = Limits { step_budget: 200_000, tensor_elements: 1 << 16, ..Limits::default() };
    let mut diagnostics = 0;
    for round in 0..600 {
        let cells = &sources[round % sources.len()];
        let mut session = Session::with_limits(limits);
        for cell in cells {
            let mutated = mutate(cell, &mut generator);
            let result = session.run_cell(&mutated);
            for diagnostic in &result.diagnostics {
                let source = session.source_of(diagnostic.cell).expect("the named cell exists");
                let span = diagnostic.span;
                assert!(
                    span.start <= span.end && span.end <= source.len(),
                    "round {round}: span {span:?} outside {source:?}"
                );
                assert!(
                    source.is_char_boundary(span.start) && source.is_char_boundary(span.end),
                    "round {round}: span {span:?} splits a character of {source:?}"
                );
                assert!(diagnostic.line >= 1 && diagnostic.column >= 1);
                diagnostics += 1;
            }
            assert!(serde_json::to_string(&result).is_ok());
        }
    }
    assert!(diagnostics > 50, "the mutations produced diagnostics to check ({diagnostics})");
}

#[test]
fn mutated_notebooks_never_panic_and_spans_stay_on_boundaries() {
    let handle = std::thread::Builder::new().stack_size(256 << 20).spawn(check_all).expect("thread");
    handle.join().expect("no panic");
}
