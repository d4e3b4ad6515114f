//! `pi_ext::truncate` against pi's own `truncate.js`, run by node on the same
//! inputs: every field of every result, and every size text, must be equal.

use std::io::Write;
use std::process::{Command, Stdio};

use pi_ext::truncate::{
    format_size, truncate_head, truncate_line, truncate_tail, TruncationOptions,
};
use serde_json::{json, Value};

/// Reads `{cases, sizes, lines}` as JSON on stdin, runs pi's functions, prints the results.
const DRIVER: &str = r#"
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const mod = await import(pathToFileURL(process.argv[1]).href);
const input = JSON.parse(readFileSync(0, "utf8"));
const out = {
  head: input.cases.map((c) => mod.truncateHead(c.text, c.options)),
  tail: input.cases.map((c) => mod.truncateTail(c.text, c.options)),
  sizes: input.sizes.map((n) => mod.formatSize(n)),
  lines: input.lines.map((l) => {
    const r = mod.truncateLine(l.text, l.max);
    // What the model receives: the UTF-8 encoding (a lone surrogate becomes U+FFFD).
    return { text: Buffer.from(r.text, "utf8").toString("utf8"), wasTruncated: r.wasTruncated };
  }),
};
process.stdout.write(JSON.stringify(out));
"#;

fn options(max_lines: Option<usize>, max_bytes: Option<usize>) -> TruncationOptions {
    TruncationOptions {
        max_lines,
        max_bytes,
    }
}

fn cases() -> Vec<(String, TruncationOptions)> {
    let numbered = |n: usize, line: &str| -> String {
        (1..=n)
            .map(|i| format!("{i} {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut cases = vec![
        (String::new(), options(None, None)),
        ("one line".into(), options(None, None)),
        ("a\nb\nc\n".into(), options(Some(2), None)),
        ("a\nb\nc".into(), options(Some(3), Some(5))),
        ("a\nb\nc".into(), options(Some(3), Some(4))),
        (numbered(2500, "x"), options(None, None)),
        (numbered(2000, "x"), options(None, None)),
        (numbered(2001, "x"), options(None, None)),
        (numbered(3000, &"y".repeat(30)), options(None, None)),
        (
            format!("{}\nshort", "z".repeat(60_000)),
            options(None, None),
        ),
        (
            format!("short\n{}", "z".repeat(60_000)),
            options(None, None),
        ),
        ("é€😀\r\n".repeat(4000), options(None, None)),
        (
            format!("start\n{}", "é😀".repeat(20_000)),
            options(Some(10), Some(1001)),
        ),
        ("ab😀cd\nef".into(), options(Some(5), Some(7))),
        ("\n\n\n\n".into(), options(Some(2), None)),
    ];
    // Lines exactly at the byte limit and one over, both ends.
    for extra in [0, 1] {
        let line = "q".repeat(100 + extra);
        cases.push((format!("{line}\n{line}"), options(None, Some(201 + extra))));
        cases.push((format!("{line}\n{line}"), options(None, Some(100))));
    }
    cases
}

fn sizes() -> Vec<u64> {
    let mut sizes = vec![0, 1, 1023, 1024, 1075, 1126, 1280, 1331, 51_200, 1_048_575];
    sizes.extend([1_048_576, 1_101_004, 1_310_720, 1_363_149, 5_000_000_000]);
    // Every tie of tenths below 4 KB, and around them.
    for tenth in 10..40u64 {
        let tie = tenth * 1024 / 10 * 10 + 512 / 10;
        sizes.extend([tie.saturating_sub(1), tie, tie + 1, tenth * 1024 / 10 + 51]);
    }
    sizes
}

fn lines() -> Vec<(String, usize)> {
    vec![
        ("short".into(), 500),
        ("x".repeat(500), 500),
        ("x".repeat(501), 500),
        ("é".repeat(600), 500),
        (format!("{}😀tail", "a".repeat(499)), 500),
        (format!("{}😀tail", "a".repeat(498)), 500),
        ("😀".repeat(10), 5),
    ]
}

#[test]
fn every_result_matches_pis_own_functions() {
    let cases = cases();
    let sizes = sizes();
    let lines = lines();
    let input = json!({
        "cases": cases.iter().map(|(text, o)| json!({
            "text": text,
            "options": {"maxLines": o.max_lines, "maxBytes": o.max_bytes},
        })).collect::<Vec<_>>(),
        "sizes": sizes,
        "lines": lines.iter().map(|(text, max)| json!({"text": text, "max": max})).collect::<Vec<_>>(),
    });
    let module = pi_ext_e2e::pinned()
        .package_dir()
        .join("dist/core/tools/truncate.js");
    let mut child = Command::new(pi_ext_e2e::pi_node())
        .args(["--input-type=module", "-e", DRIVER])
        .arg(&module)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pi: Value = serde_json::from_slice(&out.stdout).unwrap();

    // null options mean "pi's default", as `undefined` does in pi.
    for (i, (text, o)) in cases.iter().enumerate() {
        let head = serde_json::to_value(truncate_head(text, *o)).unwrap();
        assert_eq!(head, pi["head"][i], "truncate_head, case {i}");
        let tail = serde_json::to_value(truncate_tail(text, *o)).unwrap();
        assert_eq!(tail, pi["tail"][i], "truncate_tail, case {i}");
    }
    for (i, n) in sizes.iter().enumerate() {
        assert_eq!(format_size(*n), pi["sizes"][i], "format_size({n})");
    }
    for (i, (text, max)) in lines.iter().enumerate() {
        let (cut, was) = truncate_line(text, *max);
        assert_eq!(cut, pi["lines"][i]["text"], "truncate_line, case {i}");
        assert_eq!(
            was, pi["lines"][i]["wasTruncated"],
            "truncate_line, case {i}"
        );
    }
    // Counted, so a driver that compared nothing fails.
    assert_eq!(pi["head"].as_array().unwrap().len(), cases.len());
    assert_eq!(pi["sizes"].as_array().unwrap().len(), sizes.len());
}
