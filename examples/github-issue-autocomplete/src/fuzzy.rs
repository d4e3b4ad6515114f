//! pi-tui's `fuzzyFilter` (`fuzzy.js`), rewritten: a query matches when its
//! characters appear in the text in order; lower scores are better.
//!
//! Differs: positions count characters, pi-tui's UTF-16 units (the same for
//! text outside the astral planes).

/// Whether JavaScript's `/[\s\-_./:]/` matches `c`: a word boundary.
fn is_boundary(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '_' | '.' | '/' | ':')
}

/// pi-tui's `scorePositions`.
fn score_positions(text: &[char], positions: &[usize]) -> f64 {
    let mut score = 0.0;
    let mut last: Option<usize> = None;
    let mut consecutive = 0.0;
    for &i in positions {
        if last.is_some_and(|l| l + 1 == i) {
            consecutive += 1.0;
            score -= consecutive * 5.0;
        } else {
            consecutive = 0.0;
            if let Some(l) = last {
                score += (i - l - 1) as f64 * 2.0;
            }
        }
        if i == 0 || is_boundary(text[i - 1]) {
            score -= 10.0;
        }
        score += i as f64 * 0.1;
        last = Some(i);
    }
    score
}

/// Where `needle` occurs in `hay` at `from` or later.
fn index_of(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// pi-tui's `matchQuery`: the score of the best alignment, if it matches.
fn match_query(query: &[char], text: &[char]) -> Option<f64> {
    if query.is_empty() {
        return Some(0.0);
    }
    if query.len() > text.len() {
        return None;
    }
    // Each query character at its first occurrence after the previous one.
    let mut positions = Vec::with_capacity(query.len());
    let mut from = 0;
    for c in query {
        let i = index_of(text, std::slice::from_ref(c), from)?;
        positions.push(i);
        from = i + 1;
    }
    let mut score = score_positions(text, &positions);
    // Every contiguous occurrence, in case it aligns better.
    let mut start = index_of(text, query, 0);
    while let Some(s) = start {
        let contiguous: Vec<usize> = (s..s + query.len()).collect();
        score = score.min(score_positions(text, &contiguous));
        start = index_of(text, query, s + 1);
    }
    if query == text {
        score -= 100.0;
    }
    Some(score)
}

/// `query` as digits then letters, or letters then digits swapped
/// (`ab12` ↔ `12ab`), if it is one of those shapes.
fn swapped(query: &str) -> Option<String> {
    let split = query
        .find(|c: char| c.is_ascii_digit() != query.starts_with(|d: char| d.is_ascii_digit()))?;
    let (head, tail) = query.split_at(split);
    let letters = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase());
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    ((letters(head) && digits(tail)) || (digits(head) && letters(tail)))
        .then(|| format!("{tail}{head}"))
}

/// pi-tui's `fuzzyMatch`.
fn fuzzy_match(query: &str, text: &str) -> Option<f64> {
    let query = query.to_lowercase();
    let text: Vec<char> = text.to_lowercase().chars().collect();
    let chars: Vec<char> = query.chars().collect();
    if let Some(score) = match_query(&chars, &text) {
        return Some(score);
    }
    let swapped: Vec<char> = swapped(&query)?.chars().collect();
    match_query(&swapped, &text).map(|score| score + 5.0)
}

/// pi-tui's `fuzzyFilter`: the items every token of `query` (split at
/// white space and `/`) matches, best first (ties keep their order).
pub fn fuzzy_filter<T>(items: Vec<T>, query: &str, text: impl Fn(&T) -> String) -> Vec<T> {
    let tokens: Vec<&str> = query
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.is_empty() {
        return items;
    }
    let mut scored: Vec<(f64, T)> = items
        .into_iter()
        .filter_map(|item| {
            let text = text(&item);
            let scores: Option<Vec<f64>> = tokens.iter().map(|t| fuzzy_match(t, &text)).collect();
            Some((scores?.iter().sum(), item))
        })
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    scored.into_iter().map(|(_, item)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(items: &[&str], query: &str) -> Vec<String> {
        let items = items.iter().map(|s| s.to_string()).collect();
        fuzzy_filter(items, query, String::clone)
    }

    #[test]
    fn all_characters_in_order_match_and_tighter_matches_come_first() {
        let items = ["12 Fix the footer", "7 Flaky test", "30 Off by one"];
        assert_eq!(filter(&items, "foot"), ["12 Fix the footer"]);
        // "12 fix…": f and t both at a word's start, closer together.
        assert_eq!(filter(&items, "ft"), ["12 Fix the footer", "7 Flaky test"]);
        assert_eq!(filter(&items, "off one"), ["30 Off by one"]);
        assert_eq!(filter(&items, "  "), items);
    }

    #[test]
    fn letters_and_digits_swapped_match_too() {
        let items = ["12 Fix the footer", "7 Flaky test"];
        assert_eq!(filter(&items, "fix12"), ["12 Fix the footer"]);
        assert_eq!(swapped("12ab"), Some("ab12".into()));
        assert_eq!(swapped("a1b"), None);
    }
}
