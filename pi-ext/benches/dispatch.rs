//! In-process cost of dispatching a trivial tool call through the real dispatcher:
//! `pi_ext::testing::TestHost::call` (encode the request, parse, classify, spawn the handler
//! task, serialize the outcome, hand the line back over the channel, parse it on the host
//! side). `cargo bench -p pi-ext --bench dispatch`.
//!
//! What this leaves out is the process boundary (reading and writing the pipes) and
//! Node; `cargo run --release -p pi-ext-e2e --bin bench` measures those (BENCHMARKS.md).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use serde_json::json;

/// Return `ok <n>` at once.
#[tool]
async fn trivial(n: i64) -> String {
    format!("ok {n}")
}

/// The same, as a synchronous tool (run on the blocking pool).
#[tool]
fn trivial_sync(n: i64) -> String {
    format!("ok {n}")
}

fn dispatch(c: &mut Criterion) {
    let host = TestHost::new();
    assert_eq!(host.call("trivial", json!({"n": 1})).text(), "ok 1");
    let mut group = c.benchmark_group("TestHost::call");
    group.throughput(Throughput::Elements(1));
    group.bench_function("trivial async tool", |b| {
        b.iter(|| host.call(black_box("trivial"), json!({"n": 7})))
    });
    group.bench_function("trivial sync tool", |b| {
        b.iter(|| host.call(black_box("trivial_sync"), json!({"n": 7})))
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
