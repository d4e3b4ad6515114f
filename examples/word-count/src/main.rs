//! A tool-only extension: `pi-ext` with `default-features = false` (see
//! Cargo.toml), so the binary carries none of the optional parts.
use pi_ext::prelude::*;

/// Count the lines, words and bytes of a text file in the project.
#[tool(
    label = "Word count",
    prompt_snippet = "word_count: count lines, words and bytes of a file"
)]
async fn word_count(ctx: &Ctx, path: String) -> Result<String, Error> {
    let file = ctx.cwd().join(&path);
    let text = pi_ext::task::spawn_blocking(move || std::fs::read_to_string(file))
        .await
        .map_err(|e| Error::new(e.to_string()))?
        .map_err(|e| Error::new(format!("cannot read {path}: {e}")))?;
    Ok(format!(
        "{path}: {} lines, {} words, {} bytes",
        text.lines().count(),
        text.split_whitespace().count(),
        text.len()
    ))
}

#[extension(name = "word-count", description = "Counts words in a file")]
struct WordCount;

pi_ext::main!();

#[cfg(test)]
mod tests {
    use pi_ext::testing::TestHost;
    use serde_json::json;

    #[test]
    fn counts_the_lines_words_and_bytes_of_a_file() {
        let file = std::env::temp_dir().join(format!("word-count-{}.txt", std::process::id()));
        std::fs::write(&file, "one two\nthree\n").unwrap();
        let host = TestHost::new();
        let out = host.call("word_count", json!({ "path": file }));
        std::fs::remove_file(&file).unwrap();
        assert!(!out.is_error, "{}", out.text());
        assert!(
            out.text().ends_with(": 2 lines, 3 words, 14 bytes"),
            "{}",
            out.text()
        );
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let host = TestHost::new();
        let out = host.call("word_count", json!({ "path": "no/such/file.txt" }));
        assert!(out.is_error);
        assert!(
            out.text().contains("cannot read no/such/file.txt"),
            "{}",
            out.text()
        );
    }
}
