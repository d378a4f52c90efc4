//! Turns the value of a cell's last expression into a rich display.

use super::result::{
    Display, GradCheckDisplay, GraphDisplay, KernelSchedule, ScheduleDisplay, SweepDisplay, TensorDisplay,
};
use crate::lang::interp::format::tensor_preview;
use crate::lang::interp::{repr, Object, Value};
use crate::messages::Message;

/// The display of `value`.
pub fn display_value(value: &Value) -> Display {
    match value {
        Value::Tensor(object) => {
            let var = object.get();
            let values = var.tensor().to_f64_vec();
            let finite: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
            let (min, max, mean) = if finite.is_empty() {
                (None, None, None)
            } else {
                let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
                let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (Some(min), Some(max), Some(finite.iter().sum::<f64>() / finite.len() as f64))
            };
            Display::Tensor(TensorDisplay {
                shape: var.shape().to_vec(),
                dtype: var.dtype().pypto_name().to_string(),
                requires_grad: var.requires_grad(),
                preview: tensor_preview(var.tensor(), 4),
                values: values.into_iter().take(TensorDisplay::MAX_VALUES).collect(),
                min,
                max,
                mean,
            })
        }
        Value::Object(object) => match object.as_ref() {
            Object::Graph(graph) => Display::Graph(GraphDisplay {
                num_nodes: graph.nodes.len(),
                num_backward_nodes: graph.backward_nodes.len(),
                dot: graph.to_dot(),
                graph: graph.clone(),
            }),
            Object::GradCheck { report, sides } => {
                let mut display = GradCheckDisplay::from_report(report, sides.text());
                display.sides_message = Some(sides.message());
                Display::GradCheck(display)
            }
            Object::Schedule(simulation) => Display::Schedule(ScheduleDisplay {
                summary: simulation.summary.clone(),
                trace_json: simulation.trace.to_chrome_json(),
                cell: None,
            }),
            Object::Sweep(table) => Display::Sweep(SweepDisplay { table: table.as_ref().clone() }),
            _ => Display::Text { text: repr(value) },
        },
        other => Display::Text { text: repr(other) },
    }
}

/// A one-paragraph text form of a display (for the CLI).
pub fn display_text(display: &Display) -> String {
    match display {
        Display::Text { text } => text.clone(),
        Display::Tensor(tensor) => {
            let stats = match (tensor.min, tensor.max, tensor.mean) {
                (Some(min), Some(max), Some(mean)) => format!(" min={min:.6} max={max:.6} mean={mean:.6}"),
                _ => String::new(),
            };
            let grad = if tensor.requires_grad { " requires_grad" } else { "" };
            format!("Tensor shape={:?} dtype={}{grad}{stats}\n{}", tensor.shape, tensor.dtype, tensor.preview)
        }
        Display::Schedule(schedule) => {
            let summary = &schedule.summary;
            let busy: Vec<String> =
                summary.pipe_busy.iter().map(|(pipe, fraction)| format!("{pipe} {:.0}%", fraction * 100.0)).collect();
            let occupancy: Vec<String> = summary
                .peak_occupancy
                .iter()
                .map(|(memory, bytes)| {
                    format!("{memory} {bytes}/{} B", summary.capacities.get(memory).copied().unwrap_or(0))
                })
                .collect();
            let mut text = format!(
                "Schedule on {}: {} cycles ({:.3} us), {}-bound\n  busy: {}\n  GM read {} B, written {} B\n  peak occupancy: {}",
                summary.preset,
                summary.cycles,
                summary.time_us,
                summary.bound,
                busy.join(", "),
                summary.gm_bytes_read,
                summary.gm_bytes_written,
                occupancy.join(", ")
            );
            for note in &summary.notes {
                text.push_str(&format!("\n  {}", note.english()));
            }
            text
        }
        Display::Sweep(sweep) => crate::lang::interp::pypto::sweep::sweep_text(&sweep.table),
        Display::Graph(graph) => {
            format!("Graph: {} nodes, {} backward nodes", graph.num_nodes, graph.num_backward_nodes)
        }
        Display::GradCheck(check) => {
            let mut text = format!(
                "Gradient check: {} (max abs err {:.3e}, max rel err {:.3e})",
                if check.passed { "passed" } else { "FAILED" },
                check.max_abs_err,
                check.max_rel_err
            );
            for input in &check.report.inputs {
                for element in input.worst.iter().take(3) {
                    let line = Message::WorstElement {
                        input: input.input,
                        index: element.input_index.clone(),
                        analytic: element.analytic,
                        numerical: element.numerical,
                    };
                    text.push_str(&format!("\n  {line}"));
                }
                if input.worst.is_empty() && !input.non_differentiable.is_empty() {
                    let line = Message::AllKinks { input: input.input, count: input.non_differentiable.len() };
                    text.push_str(&format!("\n  {line}"));
                }
            }
            text
        }
    }
}

/// Groups a cell's kernel calls by kernel (first-call order, at most
/// [`KernelSchedule::MAX_KERNELS`]), keeping each kernel's last schedule and its call count; each
/// trace small enough to show is handed to `keep`, which returns its key.
pub(crate) fn kernel_schedules(
    calls: &[(String, std::rc::Rc<crate::npu::Simulation>)],
    cell_of: impl Fn(&str) -> Option<usize>,
    mut keep: impl FnMut(std::rc::Rc<crate::npu::Simulation>) -> String,
) -> Vec<KernelSchedule> {
    let mut grouped: Vec<(String, usize, std::rc::Rc<crate::npu::Simulation>)> = Vec::new();
    for (kernel, simulation) in calls {
        if let Some(entry) = grouped.iter_mut().find(|(name, _, _)| name == kernel) {
            entry.1 += 1;
            entry.2 = simulation.clone();
        } else if grouped.len() < KernelSchedule::MAX_KERNELS {
            grouped.push((kernel.clone(), 1, simulation.clone()));
        }
    }
    grouped
        .into_iter()
        .map(|(kernel, calls, simulation)| {
            let small = simulation.trace.events.len() <= KernelSchedule::MAX_TRACE_EVENTS;
            let summary = simulation.summary.clone();
            let trace_key = small.then(|| keep(simulation));
            let cell = cell_of(&kernel);
            let schedule = ScheduleDisplay { summary, trace_json: String::new(), cell };
            KernelSchedule { cell, kernel, calls, schedule, trace_key }
        })
        .collect()
}

/// The execution number of the cell that defined the kernel registered as `kernel`.
pub(crate) fn kernel_cell(interpreter: &crate::lang::interp::Interpreter, kernel: &str) -> Option<usize> {
    let globals = interpreter.globals();
    globals.names().iter().find_map(|name| match &globals.get(name)? {
        Value::Kernel(found) if found.name == kernel => Some(found.function.cell),
        _ => None,
    })
}
