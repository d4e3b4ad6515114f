//! The benchmark (`tests/src/bin/bench.rs`) keeps working: `bench --smoke` runs every row a
//! few times against the real pi and prints a figure for each. Timings are never asserted
//! here; BENCHMARKS.md holds the figures of a full run.

use std::process::Command;

/// Rows that must print figures.
const MEASURED: &[&str] = &[
    "1a", "1b", "1c", "1d", "2a", "2b", "2c", "2d", "3", "4a", "4b", "4c", "5a", "5b", "6a", "6b",
    "6c", "6d", "6e", "6f", "6g", "6h", "7a", "7b", "8a", "8b",
];

/// The table cells of row `id` (without the id itself), if the row was printed.
fn row<'a>(stdout: &'a str, id: &str) -> Option<Vec<&'a str>> {
    stdout.lines().find_map(|line| {
        let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").collect();
        (cells.first().map(|c| c.trim()) == Some(id)).then(|| cells[1..].to_vec())
    })
}

#[test]
fn bench_smoke_runs_every_row() {
    let out = Command::new(env!("CARGO_BIN_EXE_bench"))
        .arg("--smoke")
        .output()
        .expect("running bench --smoke");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "bench --smoke failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("bench finished"), "{stdout}");
    for id in MEASURED {
        let cells = row(&stdout, id).unwrap_or_else(|| panic!("no row {id}:\n{stdout}"));
        // Columns: measurement, Rust, TypeScript, ratio, target, result.
        let figures = format!("{} {}", cells[1], cells[2]);
        assert!(
            figures.chars().any(|c| c.is_ascii_digit()),
            "row {id} printed no figure: {cells:?}"
        );
        assert!(
            !figures.contains("NaN") && !figures.contains("inf"),
            "row {id}: {cells:?}"
        );
    }
    // Row 7's build times are skipped in a smoke run, but their rows are printed.
    for id in ["7c", "7d"] {
        let cells = row(&stdout, id).unwrap_or_else(|| panic!("no row {id}:\n{stdout}"));
        assert!(
            cells[1].contains("skipped (--smoke)"),
            "row {id}: {cells:?}"
        );
    }
}
