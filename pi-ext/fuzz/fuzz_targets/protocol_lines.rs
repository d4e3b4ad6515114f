//! Feed arbitrary bytes to the dispatcher as protocol lines; it must never
//! panic (the host's `send_line` fails on a panic) and must keep serving
//! (a `ping` is answered afterwards).
//!
//! ```sh
//! cd pi-ext/fuzz && cargo +nightly fuzz run protocol_lines
//! ```
//!
//! The suite runs the same properties, bounded, in `pi-ext/tests/fuzz_protocol.rs`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use pi_ext::testing::TestHost;

fn host() -> &'static TestHost {
    static HOST: OnceLock<TestHost> = OnceLock::new();
    HOST.get_or_init(TestHost::new)
}

fuzz_target!(|data: &[u8]| {
    let host = host();
    for line in data.split(|&b| b == b'\n') {
        host.send_line(line);
    }
    assert!(host.request("ping", pi_ext::serde_json::json!({})).is_ok());
});
