//! `pypto.schedule(kernel, *args, warm_l2=True)`: the schedule of the kernel run again right after
//! itself, so its reads of what the first run left in L2 are hits (issue 14 item 3).

use tilelab::session::Session;

const KERNEL: &str = "
import pypto as pt
pt.npu.use('Ascend910B2')
@pt.kernel
def chain(x, y):
    pt.set_vec_tile_shapes(16, 512)
    return pt.exp(x) + y
x = pt.randn([1024, 2048], seed=1)
y = pt.randn([1024, 2048], seed=2)
";

fn printed(session: &mut Session, code: &str) -> String {
    let result = session.run_cell(code);
    assert!(result.is_ok(), "{code}: {:?}", result.error());
    result.stdout.trim_end().to_string()
}

#[test]
fn a_warm_schedule_reads_the_same_bytes_faster() {
    let mut session = Session::new();
    printed(&mut session, KERNEL);
    let text = printed(
        &mut session,
        "cold = pt.schedule(chain, x, y)\nwarm = pt.schedule(chain, x, y, warm_l2=True)\n\
         print(cold.gm_bytes_read, warm.gm_bytes_read, cold.time_us, warm.time_us)",
    );
    let figures: Vec<f64> = text.split_whitespace().map(|word| word.parse().unwrap()).collect();
    // Both runs request x and y once: 2 × 1024 × 2048 × 4 bytes = 16 MiB, far below L2's 192 MiB,
    // so the second run finds every line resident and its MTE2 reads run at the L2 rate, not HBM's.
    assert_eq!(figures[0], 2.0 * 1024.0 * 2048.0 * 4.0);
    assert_eq!(figures[1], figures[0]);
    assert!(figures[3] < figures[2], "warm {} µs is not below cold {} µs", figures[3], figures[2]);
    // warm_l2=False is the ordinary schedule.
    let same = printed(&mut session, "print(pt.schedule(chain, x, y, warm_l2=False).time_us == cold.time_us)");
    assert_eq!(same, "True");
}

#[test]
fn warm_l2_takes_a_bool() {
    let mut session = Session::new();
    printed(&mut session, KERNEL);
    let result = session.run_cell("pt.schedule(chain, x, y, warm_l2='yes')");
    let error = result.error().expect("a string is refused");
    assert!(error.message.contains("warm_l2") && error.message.contains("str"), "{}", error.message);
}
