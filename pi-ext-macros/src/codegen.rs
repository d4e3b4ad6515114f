//! Codegen: thin glue that calls into `pi_ext::impl_`, where the logic
//! lives once (decoding, panics, dispatch).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use crate::model::{
    CommandModel, ExtensionModel, HandlerArg, HookModel, Input, MessageRendererModel, ToolModel,
};

/// `Some(value)` or `None` as an expression of generated code.
fn optional<T: quote::ToTokens>(value: &Option<T>) -> TokenStream {
    match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

pub fn tool(model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::impl_);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let name = &model.name;
    // The definition: the public builder's calls, one per key (a user
    // registering explicitly writes the same). A user type or expression is
    // checked once, at the user's tokens (a slot, a trait bound).
    let mut build = Vec::new();
    let mut items = Vec::new();
    let label = &model.label;
    build.push(quote!(.label(#label)));
    let description = &model.description;
    build.push(quote!(.description(#description)));
    if let Some(snippet) = &model.prompt_snippet {
        build.push(quote!(.prompt_snippet(#snippet)));
    }
    for guideline in &model.prompt_guidelines {
        build.push(quote!(.prompt_guideline(#guideline)));
    }
    if let Some(ms) = model.timeout_ms {
        build.push(quote!(.timeout(::std::time::Duration::from_millis(#ms))));
    }
    for flag in &model.flags {
        build.push(quote!(.#flag()));
    }
    // Without pi-ext's `tui` feature: one error at the key.
    let with_render = match &model.render {
        Some(expr) => {
            let gate = respan(quote!(#krate::__with_tui!), expr.span());
            quote_spanned! {expr.span()=>
            let __builder = #gate("`render = …`", {
                fn __pi_ext_render() -> #krate::tui::ToolRenderer {
                    #private::tool_renderer(#expr)
                }
                __builder.renderer(__pi_ext_render())
            });
            }
        }
        None => quote!(),
    };
    if model.annotations.iter().any(Option::is_some) {
        let setters = ["read_only", "destructive", "idempotent", "open_world"];
        let hints = setters
            .iter()
            .zip(&model.annotations)
            .filter_map(|(setter, hint)| {
                let setter = format_ident!("{}", setter);
                hint.map(|b| quote!(.#setter(#b)))
            });
        build.push(quote!(.annotations(#krate::ToolAnnotations::new() #(#hints)*)));
    }
    for (key, value) in &model.values {
        build.push(quote!(.#key(#value)));
    }
    if let Some(exposure) = &model.exposure {
        // The macro accepts only pi's names; the variants are them in camel case.
        let variant: String = exposure
            .split('-')
            .map(|w| w[..1].to_uppercase() + &w[1..])
            .collect();
        let variant = format_ident!("{}", variant);
        build.push(quote!(.exposure(#krate::ToolExposure::#variant)));
    }
    if let Some(namespace) = &model.namespace {
        build.push(quote!(.namespace(#krate::ToolNamespace::new(#namespace))));
    }
    if let Some(strictness) = &model.constrained_sampling {
        let strict = if strictness == "require" {
            quote!(Require)
        } else {
            quote!(Prefer)
        };
        build.push(
            quote!(.constrained_sampling(#krate::ConstrainedSampling::JsonSchema {
                strict: #krate::SamplingStrictness::#strict,
            })),
        );
    }
    if let Some(expr) = &model.prepare_arguments {
        items.push(quote_spanned! {expr.span()=>
            fn __pi_ext_prepare(__args: #private::Value) -> ::core::result::Result<#private::Value, ::std::string::String> {
                #private::prepare_with(#expr, __args)
            }
        });
        build.push(quote!(.prepare_arguments(__pi_ext_prepare)));
    }
    let with_output = match &model.output {
        Some(ty) => {
            items.push(quote_spanned! {ty.span()=>
                enum __PiExtOutput {}
                impl #private::OutputSlot for __PiExtOutput {
                    type Output = #ty;
                }
            });
            quote!(let __builder = #private::tool_output::<__PiExtOutput>(__builder);)
        }
        None => quote!(),
    };
    let params_ident = format_ident!(
        "__PiExtParams_{}",
        fn_ident.to_string().trim_start_matches("r#")
    );

    // The parameter type and how to turn it back into the call's arguments.
    // Every user type is checked once, in a slot (see `impl_`), spanned at it.
    let mut call_args = Vec::new();
    let mut fields = Vec::new();
    let mut field_patterns = Vec::new();
    let mut slots = Vec::new();
    let mut params_ty: Option<&syn::Type> = None;
    let mut states = Vec::new();
    for (i, input) in model.inputs.iter().enumerate() {
        match input {
            Input::State { ty } => {
                let var = format_ident!("__state_{}", i);
                states.push(quote_spanned!(ty.span()=> let #var = #private::state::<#ty>(&__ctx);));
                call_args.push(quote!(&*#var));
            }
            Input::Ctx { by_ref, ty } => call_args.push(ctx_arg(ty, *by_ref, &private, "IsCtx")),
            Input::Params { inner } => {
                params_ty = Some(inner);
                call_args.push(quote!(#krate::Params(__params)));
            }
            Input::Field {
                ident,
                ty,
                description,
                default,
            } => {
                let slot =
                    format_ident!("__PiExtArg_{}", ident.to_string().trim_start_matches("r#"));
                let (slot_trait, wrapper, serde_default) = if *default {
                    (
                        quote!(DefaultArgSlot),
                        quote!(DefaultArg),
                        quote!(#[serde(default)]),
                    )
                } else {
                    (quote!(ArgSlot), quote!(Arg), quote!())
                };
                slots.push(quote_spanned! {ty.span()=>
                    #[allow(non_camel_case_types)]
                    enum #slot {}
                    impl #private::#slot_trait for #slot {
                        type Arg = #ty;
                    }
                });
                let doc = description.as_ref().map(|d| quote!(#[doc = #d]));
                fields.push(quote!(#doc #serde_default #ident: #private::#wrapper<#slot>));
                field_patterns.push(quote!(#ident: #private::#wrapper(#ident)));
                call_args.push(quote!(#ident));
            }
        }
    }
    let (params_def, params_ty, destructure) = match params_ty {
        Some(ty) => (quote!(), quote!(#ty), quote!()),
        None => {
            let serde_path = quote!(#private::serde).to_string();
            let schemars_path = quote!(#private::schemars).to_string();
            (
                quote! {
                    #(#slots)*

                    #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
                    #[serde(crate = #serde_path)]
                    #[schemars(crate = #schemars_path)]
                    #[allow(non_camel_case_types)]
                    struct #params_ident { #(#fields,)* }
                },
                quote!(#params_ident),
                quote!(let #params_ident { #(#field_patterns,)* } = __params;),
            )
        }
    };
    let params_slot = quote_spanned! {params_ty.span()=>
        enum __PiExtParams {}
        impl #private::ParamsSlot for __PiExtParams {
            type Params = #params_ty;
        }
    };

    // An error about the body's result points at the user's return type,
    // once (the call's own bound checks it); one about its future not being
    // `Send` at the signature (`must_be_send`).
    let (_, ret_span) = return_type(&func.sig);
    let call = quote!(#fn_ident(#(#call_args),*));
    let body = if model.is_async() {
        let call = send_checked(&func.sig, &private, call);
        quote_spanned! {ret_span=>
            #private::call_async::<__PiExtParams, _, _>(#name, __ctx, __args, |__ctx, __params| async move {
                #(#states)*
                #destructure
                #call.await
            })
        }
    } else {
        quote_spanned! {ret_span=>
            #private::call_sync::<__PiExtParams, _, _>(#name, __ctx, __args, move |__ctx, __params| {
                #(#states)*
                #destructure
                #call
            })
        }
    };

    let vis = &func.vis;
    let entry = format_ident!(
        "__pi_ext_tool_{}",
        fn_ident.to_string().trim_start_matches("r#")
    );
    let ctor = format_ident!(
        "{}_tool",
        fn_ident.to_string().trim_start_matches("r#"),
        span = fn_ident.span()
    );
    let ctor_doc = format!(
        "The `{name}` tool, to register it explicitly (`Registry::new(..).tool({ctor}())`): `#[tool]` also registers it at link time."
    );
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const #entry: #private::ToolEntry = {
            #params_def
            #params_slot

            #[allow(unused_variables, clippy::clone_on_ref_ptr, clippy::redundant_clone)]
            fn __pi_ext_call(__ctx: #krate::Ctx, __args: ::std::boxed::Box<#private::RawValue>) -> #private::ToolFuture {
                #body
            }
            #(#items)*

            fn __pi_ext_make() -> #krate::ToolDef {
                let __builder = #krate::ToolDef::builder(#name) #(#build)*;
                #with_output
                #with_render
                #private::tool_handler::<__PiExtParams>(__builder, __pi_ext_call)
            }

            #private::ToolEntry {
                module: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
                make: __pi_ext_make,
            }
        };
        #private::inventory::submit! { #entry }

        #[doc = #ctor_doc]
        #[allow(dead_code)]
        #vis fn #ctor() -> #krate::ToolDef {
            #private::tool_def(&#entry)
        }
    }
}

pub fn extension(model: &ExtensionModel, item: &syn::Item) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::impl_);
    let ty = &model.ident;
    let name = match &model.name {
        Some(n) => quote!(#n),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &model.version {
        Some(v) => quote!(#v),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let description = match &model.description {
        Some(d) => quote!(#d),
        None => quote!(::core::env!("CARGO_PKG_DESCRIPTION")),
    };
    let dependencies = &model.dependencies;
    let has_on_load = model.on_load.is_some();
    let load = match &model.on_load {
        Some(f) => {
            quote_spanned!(f.span()=> #private::load_with::<#ty, _, _>(__ctx, |__ctx| #f(__ctx)))
        }
        None if model.unit => quote!(#private::load_value::<#ty>(#ty)),
        None => {
            quote_spanned!(ty.span()=> #private::load_value::<#ty>(<#ty as ::core::default::Default>::default()))
        }
    };
    // Errors about `on_unload = f` (its argument, not async, its result)
    // point at `f`.
    let unload = match &model.on_unload {
        Some(f) => quote_spanned! {f.span()=>
            ::core::option::Option::Some({
                fn __pi_ext_unload(__state: #private::AnyState) -> #private::UnloadFuture {
                    #private::unload_with::<#ty, _, _>(__state, |__s| async move { #f(&*__s).await })
                }
                __pi_ext_unload
            })
        },
        None => quote!(::core::option::Option::None),
    };
    let bare = ty.to_string();
    let entry = format_ident!("__pi_ext_extension_{}", bare);
    let command_entry = format_ident!("__pi_ext_settings_command_{}", bare);
    // Every use of the settings type goes through one trait, spanned at it:
    // a missing derive is one error there.
    let (settings, settings_command) = match &model.settings {
        Some(st) => {
            let settings_command_call = quote_spanned!(st.span()=> <#st as #private::ExtensionSettings>::command(__ctx, #name));
            // Without pi-ext's `settings` feature: one error at the type.
            (
                {
                    let gate = respan(quote!(#krate::__with_settings!), st.span());
                    quote_spanned! {st.span()=>
                        #gate("`settings = …`", ::core::option::Option::Some(#private::SettingsDecl {
                            schema: <#st as #private::ExtensionSettings>::schema,
                            type_id: #private::TypeId::of::<#st>,
                            problems: <#st as #private::ExtensionSettings>::problems,
                            command: &#command_entry,
                        }))
                    }
                },
                quote! { #krate::__with_settings! { @quiet
                    #[doc(hidden)]
                    #[allow(non_upper_case_globals, clippy::all)]
                    const #command_entry: #private::CommandEntry = {
                        fn __pi_ext_settings_command(
                            __ctx: #krate::CommandCtx,
                            __args: ::std::string::String,
                        ) -> #private::HandlerFuture {
                            #settings_command_call
                        }
                        #private::CommandEntry {
                            module: ::core::module_path!(),
                            file: ::core::file!(),
                            line: ::core::line!(),
                            name: ::core::concat!(#name, "-settings"),
                            description: "View and edit this extension's settings",
                            completions: &[],
                            complete: ::core::option::Option::None,
                            shortcut: ::core::option::Option::None,
                            shortcut_only: false,
                            call: __pi_ext_settings_command,
                        }
                    };
                    #private::inventory::submit! { #command_entry }
                }},
            )
        }
        None => (quote!(::core::option::Option::None), quote!()),
    };
    quote! {
        #item

        #settings_command

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const #entry: #private::ExtensionEntry = {
            fn __pi_ext_load(__ctx: #private::LoadCtx) -> #private::LoadFuture {
                #load
            }

            #private::ExtensionEntry {
                name: #name,
                version: #version,
                description: #description,
                dependencies: &[#(#dependencies),*],
                module: ::core::module_path!(),
                state_type: #private::TypeId::of::<#ty>,
                load: __pi_ext_load,
                unload: #unload,
                settings: #settings,
                on_load: #has_on_load,
            }
        };
        #private::inventory::submit! { #entry }

        impl #private::ExtensionState for #ty {}

        impl #krate::registry::Extension for #ty {
            fn entry() -> &'static #private::ExtensionEntry {
                &#entry
            }
        }
    }
}

pub fn hook(model: &HookModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::impl_);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let event = &model.event;
    let priority = model.priority;
    let timeout_ms = optional(&model.timeout_ms);
    let id = fn_ident.to_string();
    let id = id.trim_start_matches("r#");
    let (states, args) = handler_args(&model.args, &private, "IsCtx", quote!(__event));
    let event_name = quote_spanned!(event.span()=> <#event as #private::Event>::NAME);
    let event_batch = quote_spanned!(event.span()=> <#event as #private::Event>::BATCH);
    // The result type is spelled out, so that an error about it points at
    // the user's return type; the rest of the call is spanned at the event,
    // where an error about the event points (and only there: the entry's
    // `NAME` gives rustc the same error at the same place, which it merges).
    // A plain `fn` runs on the blocking pool, as a plain `#[tool]` does.
    let result = result_type(&func.sig);
    let call = quote!(#fn_ident(#(#args),*));
    let at_event = respan(private.clone(), event.span());
    let body = if func.sig.asyncness.is_some() {
        let call = send_checked(&func.sig, &private, call);
        quote_spanned! {event.span()=>
            #at_event::call_hook::<#event, #result, _, _>(__ctx, __payload, |__ctx, __event| async move {
                #(#states)* #call.await
            })
        }
    } else {
        quote_spanned! {event.span()=>
            #at_event::call_hook_blocking::<#event, #result, _>(__ctx, __payload, move |__ctx, __event| {
                #(#states)* #call
            })
        }
    };
    let vis = &func.vis;
    let bare = fn_ident.to_string();
    let bare = bare.trim_start_matches("r#");
    let entry = format_ident!("__pi_ext_hook_{}", bare);
    let ctor = format_ident!("{}_hook", bare, span = fn_ident.span());
    let ctor_doc = format!(
        "The `{bare}` hook, to register it explicitly (`Registry::new(..).hook({ctor}())`): `#[hook]` also registers it at link time."
    );
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const #entry: #private::HookEntry = {
            #[allow(unused_variables)]
            fn __pi_ext_hook(__ctx: #krate::Ctx, __payload: #private::HookInput) -> #private::HookFuture {
                #body
            }

            #private::HookEntry {
                module: ::core::module_path!(),
                line: ::core::line!(),
                event: #event_name,
                id: ::core::concat!(::core::module_path!(), "::", #id),
                priority: #priority,
                timeout_ms: #timeout_ms,
                batch: #event_batch,
                call: __pi_ext_hook,
            }
        };
        #private::inventory::submit! { #entry }

        #[doc = #ctor_doc]
        #[allow(dead_code)]
        #vis fn #ctor() -> #krate::registry::HookDef {
            #private::hook_def(&#entry)
        }
    }
}

pub fn command(model: &CommandModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::impl_);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let name = &model.name;
    let description = &model.description;
    let completions = &model.completions;
    // A non-capturing closure: a plain `fn` pointer in the entry.
    let complete = match &model.complete {
        Some(path) => quote! {
            ::core::option::Option::Some(|__prefix: ::std::string::String| {
                #private::complete_with(#path(__prefix))
            })
        },
        None => quote!(::core::option::Option::None),
    };
    let shortcut = optional(&model.shortcut);
    let (states, args) = handler_args(&model.order, &private, "IsCommandCtx", quote!(__args));
    let args_ty = match &model.args {
        Some(ty) => quote!(#ty),
        None => quote!(::std::string::String),
    };
    // The argument type is checked by the call's bound, at the user's type
    // (the turbofish); the result type at the user's return type.
    // A plain `fn` runs on the blocking pool, as a plain `#[tool]` does.
    let (_, ret_span) = return_type(&func.sig);
    let call = quote!(#fn_ident(#(#args),*));
    let body = if func.sig.asyncness.is_some() {
        let call = send_checked(&func.sig, &private, call);
        quote_spanned! {ret_span=>
            #private::call_command::<#args_ty, _, _>(__ctx, __args, |__ctx, __args| async move {
                #(#states)* #call.await
            })
        }
    } else {
        quote_spanned! {ret_span=>
            #private::call_command_blocking::<#args_ty, _, _>(__ctx, __args, move |__ctx, __args| {
                #(#states)* #call
            })
        }
    };
    let vis = &func.vis;
    let bare = fn_ident.to_string();
    let bare = bare.trim_start_matches("r#");
    let entry = format_ident!("__pi_ext_command_{}", bare);
    let shortcut_only = model.shortcut_only;
    let (ctor, ctor_doc) = if shortcut_only {
        let ctor = format_ident!("{}_shortcut", bare, span = fn_ident.span());
        let key = model.shortcut.as_deref().unwrap_or_default();
        let doc = format!(
            "The `{key}` shortcut, to register it explicitly (`Registry::new(..).command({ctor}())`): `#[shortcut]` also registers it at link time."
        );
        (ctor, doc)
    } else {
        let ctor = format_ident!("{}_command", bare, span = fn_ident.span());
        let doc = format!(
            "The `/{name}` command, to register it explicitly (`Registry::new(..).command({ctor}())`): `#[command]` also registers it at link time."
        );
        (ctor, doc)
    };
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const #entry: #private::CommandEntry = {
            #[allow(unused_variables)]
            fn __pi_ext_command(__ctx: #krate::CommandCtx, __args: ::std::string::String) -> #private::HandlerFuture {
                #body
            }

            #private::CommandEntry {
                module: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
                name: #name,
                description: #description,
                completions: &[#(#completions),*],
                complete: #complete,
                shortcut: #shortcut,
                shortcut_only: #shortcut_only,
                call: __pi_ext_command,
            }
        };
        #private::inventory::submit! { #entry }

        #[doc = #ctor_doc]
        #[allow(dead_code)]
        #vis fn #ctor() -> #krate::registry::CommandDef {
            #private::command_def(&#entry)
        }
    }
}

/// Arguments of a hook or command call, in the user's order: statements
/// fetching extension states, and the call's argument expressions.
/// `ctx_trait` is the `impl_` trait that lends the context as the type the
/// user wrote (and reports a type that is not a context).
fn handler_args(
    order: &[HandlerArg],
    private: &TokenStream,
    ctx_trait: &str,
    value: TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let (mut states, mut args) = (Vec::new(), Vec::new());
    for (i, arg) in order.iter().enumerate() {
        match arg {
            HandlerArg::Ctx { by_ref, ty } => args.push(ctx_arg(ty, *by_ref, private, ctx_trait)),
            HandlerArg::State(ty) => {
                let var = format_ident!("__state_{}", i);
                states.push(quote_spanned!(ty.span()=> let #var = #private::state::<#ty>(&__ctx);));
                args.push(quote!(&*#var));
            }
            HandlerArg::Value => args.push(value.clone()),
        }
    }
    (states, args)
}

/// The context argument, lent as the type the user wrote through
/// `impl_::<ctx_trait>`, which reports (once, at that type) one that is not
/// a context.
fn ctx_arg(ty: &syn::Type, by_ref: bool, private: &TokenStream, ctx_trait: &str) -> TokenStream {
    let ctx_trait = format_ident!("{}", ctx_trait);
    if by_ref {
        quote_spanned!(ty.span()=> <#ty as #private::#ctx_trait>::by_ref(&__ctx))
    } else {
        quote_spanned!(ty.span()=> <#ty as #private::#ctx_trait>::owned(&__ctx))
    }
}

/// `call` (the user's async function called) passed through
/// `impl_::must_be_send`, as an expression that spans the function's
/// signature (from `async` to the end of the return type): rustc points a
/// "future cannot be sent between threads safely" error at that
/// expression. The expression is a `match` whose keyword has the span of
/// `async` and whose braces have the span of the signature's last token.
fn send_checked(sig: &syn::Signature, private: &TokenStream, call: TokenStream) -> TokenStream {
    let first = sig.asyncness.map_or(sig.fn_token.span, |a| a.span);
    let last = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty
            .to_token_stream()
            .into_iter()
            .last()
            .map_or_else(|| ty.span(), |t| t.span()),
        syn::ReturnType::Default => sig.paren_token.span.close(),
    };
    let mut arms = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, quote!(() => #call));
    arms.set_span(last);
    let keyword = quote_spanned!(first=> match);
    quote!(#private::must_be_send(#keyword () #arms))
}

/// `tokens` with every token at `span` (so that an expression made of them
/// spans only `span`).
fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let proc_macro2::TokenTree::Group(g) = &t {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                t = group.into();
            } else {
                t.set_span(span);
            }
            t
        })
        .collect()
}

/// The declared result type of a function, for a turbofish: `()` when
/// omitted (spanned at the name), `_` when it cannot be named there (it
/// contains `impl Trait`).
fn result_type(sig: &syn::Signature) -> TokenStream {
    match &sig.output {
        syn::ReturnType::Default => quote_spanned!(sig.ident.span()=> ()),
        syn::ReturnType::Type(_, ty) if mentions_impl_trait(ty) => quote!(_),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    }
}

fn mentions_impl_trait(ty: &syn::Type) -> bool {
    fn any_impl(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == "impl",
            proc_macro2::TokenTree::Group(g) => any_impl(g.stream()),
            _ => false,
        })
    }
    any_impl(ty.to_token_stream())
}

/// A function's return type (`()` when omitted) and the span errors about
/// it should point at (the type, or the name when there is none).
pub fn return_type(sig: &syn::Signature) -> (TokenStream, proc_macro2::Span) {
    match &sig.output {
        syn::ReturnType::Default => (quote!(()), sig.ident.span()),
        syn::ReturnType::Type(_, ty) => (quote!(#ty), ty.span()),
    }
}

pub fn message_renderer(model: &MessageRendererModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::impl_);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let custom_type = &model.custom_type;
    let vis = &func.vis;
    let bare = fn_ident.to_string();
    let bare = bare.trim_start_matches("r#");
    let entry = format_ident!("__pi_ext_message_renderer_{}", bare);
    let ctor = format_ident!("{}_message_renderer", bare, span = fn_ident.span());
    let ctor_doc = format!(
        "The renderer of custom message type {:?}, to register it explicitly (`Registry::new(..).message_renderer({ctor}())`): `#[message_renderer]` also registers it at link time.",
        custom_type.value()
    );
    // One bound (`MessageRenderFn`) checks the function's signature, at its name.
    let call = quote_spanned! {fn_ident.span()=>
        #private::render_message(#fn_ident, __message, __expanded)
    };
    // Without pi-ext's `tui` feature: one error at the custom type.
    let gate = respan(quote!(#krate::__with_tui!), custom_type.span());
    let items = quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const #entry: #private::MessageRendererEntry = {
            fn __pi_ext_render(
                __message: &#private::Value,
                __expanded: bool,
            ) -> ::core::option::Option<#krate::tui::View> {
                #call
            }
            #private::MessageRendererEntry {
                module: ::core::module_path!(),
                custom_type: #custom_type,
                render: __pi_ext_render,
            }
        };
        #private::inventory::submit! { #entry }

        #[doc = #ctor_doc]
        #[allow(dead_code)]
        #vis fn #ctor() -> #krate::registry::MessageRendererDef {
            #private::message_renderer_def(&#entry)
        }
    };
    let gated =
        quote_spanned! {custom_type.span()=> #gate { @item "`#[message_renderer]`", #items } };
    quote! {
        #func

        #gated
    }
}
