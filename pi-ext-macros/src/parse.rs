//! Parse: attribute arguments (`key = value, …`) with spanned errors for
//! unknown keys (with a suggestion), duplicates and wrong value kinds.

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprArray, ExprLit, Ident, Lit, LitStr, Token};

/// One `key = value` or bare `key` inside an attribute.
pub struct KeyValue {
    pub key: Ident,
    pub value: Option<Expr>,
}

impl Parse for KeyValue {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // `crate` is a keyword, so parse any identifier-like token.
        let key = input.call(syn::ext::IdentExt::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(KeyValue { key, value })
    }
}

/// A comma-separated list of [`KeyValue`]s.
pub struct KeyValues(pub Vec<KeyValue>);

impl Parse for KeyValues {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let list = Punctuated::<KeyValue, Token![,]>::parse_terminated(input)?;
        Ok(KeyValues(list.into_iter().collect()))
    }
}

/// Accumulates errors so the user sees all of them at once.
#[derive(Default)]
pub struct Errors(Option<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
    pub fn push_at(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }
    pub fn finish(self) -> syn::Result<()> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Checks keys against the allowed set and hands out typed values.
pub struct Keys<'a> {
    allowed: &'a [&'a str],
    attr: &'a str,
    seen: Vec<String>,
}

impl<'a> Keys<'a> {
    pub fn new(attr: &'a str, allowed: &'a [&'a str]) -> Self {
        Keys {
            allowed,
            attr,
            seen: Vec::new(),
        }
    }

    /// Validate a key: known, not repeated. Returns its name when usable.
    pub fn check(&mut self, kv: &KeyValue, errors: &mut Errors) -> Option<String> {
        let key = kv.key.to_string();
        if !self.allowed.contains(&key.as_str()) {
            let hint = match suggest(&key, self.allowed) {
                Some(s) => format!("; did you mean `{s}`?"),
                None => String::new(),
            };
            errors.push_at(
                kv.key.span(),
                format!(
                    "unknown `#[{}]` key `{key}`{hint} (expected one of: {})",
                    self.attr,
                    self.allowed.join(", ")
                ),
            );
            return None;
        }
        if self.seen.contains(&key) {
            errors.push_at(
                kv.key.span(),
                format!("`{key}` is given twice in `#[{}]`", self.attr),
            );
            return None;
        }
        self.seen.push(key.clone());
        Some(key)
    }
}

/// The closest allowed key, if it is close enough to be a typo.
fn suggest<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (levenshtein(key, a), *a))
        .filter(|(d, a)| *d <= 2.max(a.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, a)| a)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The value of `key = "string"`.
pub fn string_value(kv: &KeyValue) -> syn::Result<LitStr> {
    match &kv.value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Ok(s.clone()),
        Some(other) => Err(syn::Error::new_spanned(
            other,
            format!(
                "`{}` takes a string literal, e.g. `{} = \"…\"`",
                kv.key, kv.key
            ),
        )),
        None => Err(syn::Error::new(
            kv.key.span(),
            format!("`{}` needs a value, e.g. `{} = \"…\"`", kv.key, kv.key),
        )),
    }
}

/// The value of `key = ["a", "b"]` (a single string is accepted too).
pub fn string_list_value(kv: &KeyValue) -> syn::Result<Vec<LitStr>> {
    match &kv.value {
        Some(Expr::Array(ExprArray { elems, .. })) => elems
            .iter()
            .map(|e| match e {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Ok(s.clone()),
                other => Err(syn::Error::new_spanned(
                    other,
                    "expected a string literal in this list",
                )),
            })
            .collect(),
        Some(Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        })) => Ok(vec![s.clone()]),
        Some(other) => Err(syn::Error::new_spanned(
            other,
            format!(
                "`{}` takes a list of strings, e.g. `{} = [\"…\", \"…\"]`",
                kv.key, kv.key
            ),
        )),
        None => Err(syn::Error::new(
            kv.key.span(),
            format!("`{}` needs a value, e.g. `{} = [\"…\"]`", kv.key, kv.key),
        )),
    }
}

/// A duration as a string literal (`"30s"`, `"500ms"`, `"2m"`), in milliseconds.
pub fn duration_ms_value(kv: &KeyValue) -> syn::Result<u64> {
    let lit = string_value(kv)?;
    let text = lit.value();
    let trimmed = text.trim();
    let (digits, unit) = trimmed.split_at(
        trimmed
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(trimmed.len()),
    );
    let scale = match unit.trim() {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" | "min" => Some(60_000),
        _ => None,
    };
    match (digits.parse::<u64>(), scale) {
        (Ok(n), Some(scale)) if n > 0 => n
            .checked_mul(scale)
            .ok_or_else(|| syn::Error::new(lit.span(), format!("`{}` is too long", kv.key))),
        _ => Err(syn::Error::new(
            lit.span(),
            format!(
                "`{}` takes a duration such as \"30s\", \"500ms\" or \"2m\"",
                kv.key
            ),
        )),
    }
}

/// The value of `key = true` / `key = false`.
pub fn bool_value(kv: &KeyValue) -> syn::Result<bool> {
    match &kv.value {
        Some(Expr::Lit(ExprLit {
            lit: Lit::Bool(b), ..
        })) => Ok(b.value),
        Some(other) => Err(syn::Error::new_spanned(
            other,
            format!("`{}` takes `true` or `false`", kv.key),
        )),
        None => Err(syn::Error::new(
            kv.key.span(),
            format!(
                "`{}` needs a value: `{} = true` or `{} = false`",
                kv.key, kv.key, kv.key
            ),
        )),
    }
}

/// The value of `key = "one of choices"`.
pub fn choice_value(kv: &KeyValue, choices: &[&str]) -> syn::Result<LitStr> {
    let lit = string_value(kv)?;
    if choices.contains(&lit.value().as_str()) {
        return Ok(lit);
    }
    Err(syn::Error::new(
        lit.span(),
        format!(
            "`{}` is one of {}; not \"{}\"",
            kv.key,
            choices
                .iter()
                .map(|c| format!("\"{c}\""))
                .collect::<Vec<_>>()
                .join(", "),
            lit.value()
        ),
    ))
}

/// A bare flag (`default`) must not have a value.
pub fn flag_value(kv: &KeyValue) -> syn::Result<()> {
    match &kv.value {
        None => Ok(()),
        Some(v) => Err(syn::Error::new_spanned(
            v,
            format!("`{}` is a flag and takes no value", kv.key),
        )),
    }
}

/// Join the `///` lines of an item into one description.
pub fn doc_string(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
            {
                lines.push(s.value());
            }
        }
    }
    let text = unindent(&lines);
    (!text.is_empty()).then_some(text)
}

/// Strip the common leading space of doc lines and trim blank edges, keeping
/// paragraph breaks.
fn unindent(lines: &[String]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = lines
        .iter()
        .map(|l| {
            if l.len() >= indent {
                &l[indent..]
            } else {
                l.trim()
            }
        })
        .map(str::trim_end)
        .collect();
    body.join("\n").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos_only() {
        let allowed = ["name", "label", "description", "prompt_snippet"];
        assert_eq!(suggest("lable", &allowed), Some("label"));
        assert_eq!(suggest("descripton", &allowed), Some("description"));
        assert_eq!(suggest("prompt_snipet", &allowed), Some("prompt_snippet"));
        assert_eq!(suggest("xyz", &allowed), None);
    }

    #[test]
    fn docs_are_unindented() {
        let attrs: Vec<syn::Attribute> = vec![
            syn::parse_quote!(#[doc = " Greet someone."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Second  paragraph."]),
        ];
        assert_eq!(
            doc_string(&attrs).unwrap(),
            "Greet someone.\n\nSecond  paragraph."
        );
    }
}
