//! Paper §4.3: a patient note the hosted model must never read. The hosted model's snippet can only hand the
//! note to a closure safe mode checks is pure, and the only hole allowed inside that closure goes to the model
//! `lacuna.toml` marks local. The host alone takes the result out.

fn main() {
    let note: Classified<String> = Classified::new(
        "Patient: Ada Lovelace. Diagnosis: influenza A. Prescribed oseltamivir 75 mg twice daily for 5 days."
            .to_string(),
    );
    let summary: Classified<String> = agent!("summarize the patient note for the chart, in one short line")
        .unwrap_or_else(|e| {
            eprintln!("no summary: {e}");
            Classified::new(String::new())
        });
    println!("what the hosted model's code produced: {summary:?}");
    let chart = summary.declassify(lacuna::cap::ambient_authority());
    println!("chart: {chart}");
}
