// hole: src/report.rs:6
// expect: rejected E0616
let notes: usize = desk.orders().iter().map(|o| o.notes.len()).sum();
format!("{} orders, {notes} notes", desk.orders().len())
