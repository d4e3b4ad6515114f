//! Codegen: thin glue that calls into `pi_ext::impl_`, where the logic
//! lives once (decoding, panics, dispatch).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{CommandModel, ExtensionModel, HandlerArg, HookModel, Input, ToolModel};

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
    let label = &model.label;
    let description = &model.description;
    let snippet = optional(&model.prompt_snippet);
    let guidelines = &model.prompt_guidelines;
    let timeout_ms = optional(&model.timeout_ms);
    let overrides_builtin = model.overrides_builtin;
    let params_ident = format_ident!(
        "__PiExtParams_{}",
        fn_ident.to_string().trim_start_matches("r#")
    );

    // The parameter type and how to turn it back into the call's arguments.
    let mut checks = Vec::new();
    let mut call_args = Vec::new();
    let mut fields = Vec::new();
    let mut field_names = Vec::new();
    let mut params_ty: Option<TokenStream> = None;
    let mut states = Vec::new();
    for (i, input) in model.inputs.iter().enumerate() {
        match input {
            Input::State { ty } => {
                let var = format_ident!("__state_{}", i);
                checks.push(quote_spanned!(ty.span()=> #private::assert_state::<#ty>();));
                states.push(quote!(let #var = #private::state::<#ty>(&__ctx);));
                call_args.push(quote!(&*#var));
            }
            Input::Ctx { by_ref, ty } => {
                checks.push(quote_spanned!(ty.span()=> #private::assert_ctx::<#ty>();));
                call_args.push(if *by_ref {
                    quote!(&__ctx)
                } else {
                    quote!(__ctx.clone())
                });
            }
            Input::Params { inner, .. } => {
                checks.push(quote_spanned!(inner.span()=> #private::assert_params::<#inner>();));
                params_ty = Some(quote!(#inner));
                call_args.push(quote!(#krate::Params(__params)));
            }
            Input::Field {
                ident,
                ty,
                description,
                default,
            } => {
                let doc = description.as_ref().map(|d| quote!(#[doc = #d]));
                let default = default.then(|| quote!(#[serde(default)]));
                fields.push(quote!(#doc #default #ident: #ty));
                field_names.push(ident.clone());
                call_args.push(quote!(#ident));
            }
        }
    }
    let (params_def, params_ty, destructure) = match params_ty {
        Some(ty) => (quote!(), ty, quote!()),
        None => {
            let serde_path = quote!(#private::serde).to_string();
            let schemars_path = quote!(#private::schemars).to_string();
            (
                quote! {
                    #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
                    #[serde(crate = #serde_path)]
                    #[schemars(crate = #schemars_path)]
                    #[allow(non_camel_case_types)]
                    struct #params_ident { #(#fields,)* }
                },
                quote!(#params_ident),
                quote!(let #params_ident { #(#field_names,)* } = __params;),
            )
        }
    };

    // Errors about the body's future (wrong return type, not `Send`) point
    // at the user's return type, once: the call's own bound checks it.
    let (_, sig_span) = return_type(&func.sig);
    let body = if model.is_async() {
        quote_spanned! {sig_span=>
            #private::call_async::<#params_ty, _, _>(#name, __ctx, __args, |__ctx, __params: #params_ty| async move {
                #(#states)*
                #destructure
                #fn_ident(#(#call_args),*).await
            })
        }
    } else {
        quote_spanned! {sig_span=>
            #private::call_sync::<#params_ty, _, _>(#name, __ctx, __args, move |__ctx, __params: #params_ty| {
                #(#states)*
                #destructure
                #fn_ident(#(#call_args),*)
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

            #[allow(unused_variables, clippy::clone_on_ref_ptr, clippy::redundant_clone)]
            fn __pi_ext_call(__ctx: #krate::Ctx, __args: #private::Value) -> #private::ToolFuture {
                #body
            }

            #[allow(dead_code)]
            fn __pi_ext_checks() {
                #(#checks)*
            }

            #private::ToolEntry {
                module: ::core::module_path!(),
                name: #name,
                label: #label,
                description: #description,
                prompt_snippet: #snippet,
                prompt_guidelines: &[#(#guidelines),*],
                timeout_ms: #timeout_ms,
                overrides_builtin: #overrides_builtin,
                schema: #private::portable_schema_for::<#params_ty>,
                call: __pi_ext_call,
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
    let load = match &model.on_load {
        Some(f) => {
            quote_spanned!(f.span()=> #private::load_with::<#ty, _, _>(__ctx, |__ctx| #f(__ctx)))
        }
        None if model.unit => quote!(#private::load_value::<#ty>(#ty)),
        None => {
            quote_spanned!(ty.span()=> #private::load_value::<#ty>(<#ty as ::core::default::Default>::default()))
        }
    };
    let unload = match &model.on_unload {
        Some(f) => quote! {
            ::core::option::Option::Some({
                fn __pi_ext_unload(__state: #private::AnyState) -> #private::UnloadFuture {
                    #private::unload_with::<#ty, _, _>(__state, |__s| async move { #f(&__s).await })
                }
                __pi_ext_unload
            })
        },
        None => quote!(::core::option::Option::None),
    };
    let bare = ty.to_string();
    let entry = format_ident!("__pi_ext_extension_{}", bare);
    let command_entry = format_ident!("__pi_ext_settings_command_{}", bare);
    let (settings, settings_command) = match &model.settings {
        Some(st) => (
            quote_spanned! {st.span()=>
                ::core::option::Option::Some(#private::SettingsDecl {
                    schema: #private::settings_schema::<#st>,
                    type_id: #private::TypeId::of::<#st>,
                    problems: #private::settings_problems::<#st>,
                    command: &#command_entry,
                })
            },
            quote! {
                #[doc(hidden)]
                #[allow(non_upper_case_globals, clippy::all)]
                const #command_entry: #private::CommandEntry = {
                    fn __pi_ext_settings_command(
                        __ctx: #krate::CommandCtx,
                        __args: ::std::string::String,
                    ) -> #private::HandlerFuture {
                        #private::settings_command::<#st>(__ctx, #name)
                    }
                    #private::CommandEntry {
                        module: ::core::module_path!(),
                        name: ::core::concat!(#name, "-settings"),
                        description: "View and edit this extension's settings",
                        completions: &[],
                        shortcut: ::core::option::Option::None,
                        call: __pi_ext_settings_command,
                    }
                };
                #private::inventory::submit! { #command_entry }
            },
        ),
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
    let (states, state_checks, args) = handler_args(
        &model.args,
        &private,
        |by_ref| {
            if by_ref {
                quote!(&__ctx)
            } else {
                quote!(__ctx.clone())
            }
        },
        quote!(__event),
    );
    let (_, ret_span) = return_type(&func.sig);
    let event_check = quote_spanned!(event.span()=> #private::assert_event::<#event>(););
    let event_name = quote_spanned!(event.span()=> <#event as #private::Event>::NAME);
    // A plain `fn` runs on the blocking pool, as a plain `#[tool]` does. The
    // call's own bound checks the return type, once, at the user's type.
    let body = if func.sig.asyncness.is_some() {
        quote_spanned! {ret_span=>
            #private::call_hook::<#event, _, _>(__ctx, __payload, |__ctx, __event| async move {
                #(#states)* #fn_ident(#(#args),*).await
            })
        }
    } else {
        quote_spanned! {ret_span=>
            #private::call_hook_blocking::<#event, _, _>(__ctx, __payload, move |__ctx, __event| {
                #(#states)* #fn_ident(#(#args),*)
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
            fn __pi_ext_hook(__ctx: #krate::Ctx, __payload: #private::Value) -> #private::HandlerFuture {
                #body
            }

            #[allow(dead_code)]
            fn __pi_ext_checks() {
                #event_check
                #(#state_checks)*
            }

            #private::HookEntry {
                module: ::core::module_path!(),
                line: ::core::line!(),
                event: #event_name,
                id: ::core::concat!(::core::module_path!(), "::", #id),
                priority: #priority,
                timeout_ms: #timeout_ms,
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
    let shortcut = optional(&model.shortcut);
    let plain_ctx = matches!(model.ctx, Some((_, true)));
    let (states, state_checks, args) = handler_args(
        &model.order,
        &private,
        |by_ref| match (by_ref, plain_ctx) {
            (true, _) => quote!(&__ctx),
            (false, false) => quote!(__ctx.clone()),
            (false, true) => quote!(__ctx.ctx().clone()),
        },
        quote!(__args),
    );
    let args_ty = match &model.args {
        Some(ty) => quote!(#ty),
        None => quote!(::std::string::String),
    };
    let (_, ret_span) = return_type(&func.sig);
    let mut checks = state_checks;
    if let Some(ty) = &model.args {
        checks.push(quote_spanned!(ty.span()=> #private::assert_args::<#ty>();));
    }
    if let Some(ty) = &model.ctx_ty {
        checks.push(quote_spanned!(ty.span()=> #private::assert_command_ctx::<#ty>();));
    }
    // A plain `fn` runs on the blocking pool, as a plain `#[tool]` does. The
    // call's own bound checks the return type, once, at the user's type.
    let body = if func.sig.asyncness.is_some() {
        quote_spanned! {ret_span=>
            #private::call_command::<#args_ty, _, _>(__ctx, __args, |__ctx, __args| async move {
                #(#states)* #fn_ident(#(#args),*).await
            })
        }
    } else {
        quote_spanned! {ret_span=>
            #private::call_command_blocking::<#args_ty, _, _>(__ctx, __args, move |__ctx, __args| {
                #(#states)* #fn_ident(#(#args),*)
            })
        }
    };
    let vis = &func.vis;
    let bare = fn_ident.to_string();
    let bare = bare.trim_start_matches("r#");
    let entry = format_ident!("__pi_ext_command_{}", bare);
    let ctor = format_ident!("{}_command", bare, span = fn_ident.span());
    let ctor_doc = format!(
        "The `/{name}` command, to register it explicitly (`Registry::new(..).command({ctor}())`): `#[command]` also registers it at link time."
    );
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const #entry: #private::CommandEntry = {
            #[allow(unused_variables)]
            fn __pi_ext_command(__ctx: #krate::CommandCtx, __args: ::std::string::String) -> #private::HandlerFuture {
                #body
            }

            #[allow(dead_code)]
            fn __pi_ext_checks() {
                #(#checks)*
            }

            #private::CommandEntry {
                module: ::core::module_path!(),
                name: #name,
                description: #description,
                completions: &[#(#completions),*],
                shortcut: #shortcut,
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
/// fetching extension states, their compile-time checks, and the call's
/// argument expressions.
fn handler_args(
    order: &[HandlerArg],
    private: &TokenStream,
    ctx: impl Fn(bool) -> TokenStream,
    value: TokenStream,
) -> (Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>) {
    let (mut states, mut checks, mut args) = (Vec::new(), Vec::new(), Vec::new());
    for (i, arg) in order.iter().enumerate() {
        match arg {
            HandlerArg::Ctx(by_ref) => args.push(ctx(*by_ref)),
            HandlerArg::State(ty) => {
                let var = format_ident!("__state_{}", i);
                checks.push(quote_spanned!(ty.span()=> #private::assert_state::<#ty>();));
                states.push(quote!(let #var = #private::state::<#ty>(&__ctx);));
                args.push(quote!(&*#var));
            }
            HandlerArg::Value => args.push(value.clone()),
        }
    }
    (states, checks, args)
}

/// A function's return type (`()` when omitted) and the span errors about
/// it should point at (the type, or the name when there is none).
pub fn return_type(sig: &syn::Signature) -> (TokenStream, proc_macro2::Span) {
    match &sig.output {
        syn::ReturnType::Default => (quote!(()), sig.ident.span()),
        syn::ReturnType::Type(_, ty) => (quote!(#ty), ty.span()),
    }
}
