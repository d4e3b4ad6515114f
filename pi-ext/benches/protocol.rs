//! In-process costs of the wire protocol: framing (`encode_line`, `LineSplitter`) and decoding
//! a `tool/call` line (`Incoming::parse`). `cargo bench -p pi-ext --bench protocol`.
//!
//! The end-to-end benchmark against the real pi is `cargo run --release -p pi-ext-e2e --bin bench`
//! (see BENCHMARKS.md); these isolate the parts of one call that run inside the extension.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use pi_ext::internals::{encode_line, Incoming, LineSplitter};
use serde_json::{json, Value};

/// The answer to a trivial tool call, as the dispatcher sends it.
fn small_result() -> Value {
    json!({"id": 7, "result": {"content": [{"type": "text", "text": "ok 7"}], "details": null, "isError": false}})
}

/// An answer carrying 64 KiB of text (a file read, a long command output).
fn large_result(text: &str) -> Value {
    json!({"id": 8, "result": {"content": [{"type": "text", "text": text}], "details": null, "isError": false}})
}

/// A `tool/call` line as the bridge writes it.
const TOOL_CALL: &[u8] =
    br#"{"id":42,"method":"tool/call","params":{"tool":"greet","toolCallId":"call_greet_1","args":{"name":"Ada","times":3}}}"#;

fn framing(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode_line");
    let small = small_result();
    group.bench_function("trivial result", |b| {
        b.iter(|| encode_line(black_box(&small)))
    });
    let ascii = "lorem ipsum dolor sit amet ".repeat(64 * 1024 / 27);
    let large = large_result(&ascii);
    group.throughput(Throughput::Bytes(ascii.len() as u64));
    group.bench_function("64 KiB text", |b| b.iter(|| encode_line(black_box(&large))));
    // Non-ASCII text takes the slow path that escapes U+2028/U+2029.
    let accented = "é lorem\u{2028}ipsum ".repeat(64 * 1024 / 17);
    let large = large_result(&accented);
    group.throughput(Throughput::Bytes(accented.len() as u64));
    group.bench_function("64 KiB text with U+2028", |b| {
        b.iter(|| encode_line(black_box(&large)))
    });
    group.finish();

    let mut group = c.benchmark_group("LineSplitter");
    let mut one = TOOL_CALL.to_vec();
    one.push(b'\n');
    group.throughput(Throughput::Elements(1));
    group.bench_function("one tool/call line", |b| {
        b.iter_batched(
            || (LineSplitter::new(64 << 20), Vec::with_capacity(1)),
            |(mut s, mut out)| {
                s.push(black_box(&one), &mut out);
                out
            },
            BatchSize::SmallInput,
        )
    });
    // A full 64 KiB read of back-to-back lines, the last one unfinished.
    let mut chunk = Vec::new();
    let mut lines = 0;
    while chunk.len() + one.len() < 64 * 1024 {
        chunk.extend_from_slice(&one);
        lines += 1;
    }
    chunk.extend_from_slice(&TOOL_CALL[..20]);
    group.throughput(Throughput::Elements(lines));
    group.bench_function("64 KiB chunk of tool/call lines", |b| {
        b.iter_batched(
            || {
                (
                    LineSplitter::new(64 << 20),
                    Vec::with_capacity(lines as usize),
                )
            },
            |(mut s, mut out)| {
                s.push(black_box(&chunk), &mut out);
                out
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn decoding(c: &mut Criterion) {
    let mut group = c.benchmark_group("Incoming::parse");
    group.throughput(Throughput::Elements(1));
    group.bench_function("tool/call line", |b| {
        b.iter(|| Incoming::parse(black_box(TOOL_CALL)).expect("valid"))
    });
    group.bench_function("tool/call line + classify", |b| {
        b.iter(|| {
            Incoming::parse(black_box(TOOL_CALL))
                .expect("valid")
                .classify()
                .expect("a request")
        })
    });
    group.finish();
}

criterion_group!(benches, framing, decoding);
criterion_main!(benches);
