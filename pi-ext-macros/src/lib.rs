//! Attribute macros of [pi-ext](https://docs.rs/pi-ext): `#[tool]`,
//! `#[hook]`, `#[command]`, `#[shortcut]` and `#[extension]`. Use them through `pi_ext`
//! (`use pi_ext::prelude::*`); their documentation lives there.
//!
//! The pipeline is parse (attribute syntax, `parse.rs`) → model (validated
//! declaration with spans, `model.rs`) → codegen (thin calls into
//! `pi_ext::impl_`, `codegen.rs`). On error the item is emitted
//! unchanged next to the errors, so rust-analyzer keeps working inside it.
//!
//! Each mistake is one error at the user's token: syntax mistakes from the
//! model, type mistakes from one trait bound in `pi_ext::impl_` per user
//! type (see the "slots" there), so that no derive or call checks the same
//! type twice. The trybuild cases in `pi-ext/tests/ui/fail/` pin every
//! message; the programs in `pi-ext/tests/ui/pass/` (test targets
//! `ui_pass_*`) use every supported form.

mod codegen;
mod model;
mod parse;

use proc_macro::TokenStream;
use quote::ToTokens;

/// Turn a function into a pi tool. Documented in `pi_ext::tool`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match syn::parse::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(f)) => f,
        Ok(other) => {
            let err = syn::Error::new(
                model::item_span(&other),
                "`#[tool]` goes on a function: `async fn name(args…) -> Result<String, Error>`",
            );
            return with_errors(item.into(), err);
        }
        Err(e) => return with_errors(item.into(), e),
    };
    let placeholder = model::has_placeholder_argument(&func);
    match model::ToolModel::build(attr.into(), func) {
        (cleaned, Ok(_)) if placeholder => cleaned.into_token_stream().into(),
        (_, Ok(model)) => codegen::tool(&model).into(),
        (cleaned, Err(err)) => with_errors(cleaned.into_token_stream(), err),
    }
}

/// Render a custom message type in pi's terminal. Documented in
/// `pi_ext::message_renderer`.
#[proc_macro_attribute]
pub fn message_renderer(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match fn_item(
        item,
        "#[message_renderer]",
        "fn name(msg: &RenderedMessage<Details>, opts: MessageOpts) -> View",
    ) {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    match model::MessageRendererModel::build(attr.into(), func) {
        (_, Ok(model)) => codegen::message_renderer(&model).into(),
        (cleaned, Err(err)) => with_errors(cleaned.into_token_stream(), err),
    }
}

/// Subscribe a function to a pi event. Documented in `pi_ext::hook`.
#[proc_macro_attribute]
pub fn hook(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match fn_item(
        item,
        "#[hook]",
        "async fn name(event: ToolCallEvent) -> ToolCallAction",
    ) {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    let placeholder = model::has_placeholder_argument(&func);
    match model::HookModel::build(attr.into(), func) {
        (cleaned, Ok(_)) if placeholder => cleaned.into_token_stream().into(),
        (_, Ok(model)) => codegen::hook(&model).into(),
        (cleaned, Err(err)) => with_errors(cleaned.into_token_stream(), err),
    }
}

/// Register a slash command. Documented in `pi_ext::command`.
#[proc_macro_attribute]
pub fn command(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match fn_item(
        item,
        "#[command]",
        "async fn name(ctx: &CommandCtx, args: String)",
    ) {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    let placeholder = model::has_placeholder_argument(&func);
    match model::CommandModel::build(attr.into(), func) {
        (cleaned, Ok(_)) if placeholder => cleaned.into_token_stream().into(),
        (_, Ok(model)) => codegen::command(&model).into(),
        (cleaned, Err(err)) => with_errors(cleaned.into_token_stream(), err),
    }
}

/// Run a function on a key in pi's terminal UI, with no command. Documented
/// in `pi_ext::shortcut`.
#[proc_macro_attribute]
pub fn shortcut(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = match fn_item(item, "#[shortcut]", "async fn name(ctx: &CommandCtx)") {
        Ok(f) => f,
        Err(tokens) => return tokens,
    };
    let placeholder = model::has_placeholder_argument(&func);
    match model::CommandModel::build_shortcut(attr.into(), func) {
        (cleaned, Ok(_)) if placeholder => cleaned.into_token_stream().into(),
        (_, Ok(model)) => codegen::command(&model).into(),
        (cleaned, Err(err)) => with_errors(cleaned.into_token_stream(), err),
    }
}

/// Parse a function item, or produce the item plus an error saying what the
/// attribute goes on.
fn fn_item(item: TokenStream, attr: &str, example: &str) -> Result<syn::ItemFn, TokenStream> {
    match syn::parse::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(f)) => Ok(f),
        Ok(other) => Err(with_errors(
            item.into(),
            syn::Error::new(
                model::item_span(&other),
                format!("`{attr}` goes on a function: `{example}`"),
            ),
        )),
        Err(e) => Err(with_errors(item.into(), e)),
    }
}

/// Declare the extension. Documented in `pi_ext::extension`.
#[proc_macro_attribute]
pub fn extension(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = match syn::parse::<syn::Item>(item.clone()) {
        Ok(i) => i,
        Err(e) => return with_errors(item.into(), e),
    };
    match model::ExtensionModel::build(attr.into(), &parsed) {
        Ok(model) => codegen::extension(&model, &parsed).into(),
        Err(err) => with_errors(parsed.into_token_stream(), err),
    }
}

/// pi's built-in tool names as a `&[&str]` expression: `pi_ext` builds its
/// `BUILTIN_TOOLS` from it, so the macros and the runtime share one list.
#[doc(hidden)]
#[proc_macro]
pub fn __builtin_tools(_input: TokenStream) -> TokenStream {
    let names = model::BUILTIN_TOOLS;
    quote::quote!(&[#(#names),*]).into()
}

fn with_errors(item: proc_macro2::TokenStream, err: syn::Error) -> TokenStream {
    let errors = err.to_compile_error();
    quote::quote!(#item #errors).into()
}
