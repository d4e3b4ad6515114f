//! The Rust half of the benchmark (`cargo run --release -p pi-ext-e2e --bin bench`).
//!
//! `tests/fixtures/bench-ext.ts` is the same extension written in TypeScript,
//! with the same tools prefixed `ts_`; both must stay equivalent, so that the
//! benchmark compares the SDK and not two different pieces of work.
use pi_ext::prelude::*;

/// Return `ok <n>` at once: the cheapest possible tool call.
#[tool(prompt_snippet = "trivial: benchmark no-op")]
async fn trivial(n: i64) -> String {
    format!("ok {n}")
}

/// Ask one yes/no question and report the answer.
#[tool(prompt_snippet = "confirm_once: benchmark dialog")]
async fn confirm_once(ctx: &Ctx) -> Result<String, Error> {
    let yes = ctx.ui().confirm("Bench", "Confirm once?").await?;
    Ok(if yes { "yes" } else { "no" }.to_owned())
}

/// Generate `mb` MiB of pseudo-random text from `seed`, then report its
/// FNV-1a hash and how often `needle` occurs in it.
#[tool(prompt_snippet = "cpu_hash: benchmark CPU work")]
fn cpu_hash(mb: u32, seed: u32, needle: String) -> Result<String, Error> {
    if needle.is_empty() || seed == 0 {
        return Err(Error::new("needle must not be empty and seed not 0"));
    }
    let text = generate(mb as usize * 1024 * 1024, seed);
    let hash = fnv1a32(&text);
    let count = count_naive(&text, needle.as_bytes());
    Ok(format!(
        "fnv1a32={hash:08x} count={count} bytes={}",
        text.len()
    ))
}

/// `len` bytes of lowercase letters and spaces from xorshift32.
fn generate(len: usize, seed: u32) -> Vec<u8> {
    const ALPHABET: &[u8; 27] = b"abcdefghijklmnopqrstuvwxyz ";
    let mut x = seed;
    let mut text = Vec::with_capacity(len);
    for _ in 0..len {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        text.push(ALPHABET[(x % 27) as usize]);
    }
    text
}

/// 32-bit FNV-1a.
fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// Occurrences of `needle` (overlapping ones included), by the naive
/// algorithm: compare at every position.
fn count_naive(haystack: &[u8], needle: &[u8]) -> usize {
    if haystack.len() < needle.len() {
        return 0;
    }
    let mut count = 0;
    for start in 0..=haystack.len() - needle.len() {
        let mut j = 0;
        while j < needle.len() && haystack[start + j] == needle[j] {
            j += 1;
        }
        if j == needle.len() {
            count += 1;
        }
    }
    count
}

#[extension(name = "bench-ext", description = "pi-ext benchmark tools")]
struct BenchExt;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers() {
        // The TypeScript twin must print the same for the same input.
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(count_naive(b"aaaa", b"aa"), 3);
        assert_eq!(&generate(8, 1), b"sngi qky");
    }
}
