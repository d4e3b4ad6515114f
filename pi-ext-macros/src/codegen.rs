//! Codegen: thin glue that calls into `pi_ext::__private`, where the logic
//! lives once (decoding, panics, dispatch).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::model::{CommandModel, ExtensionModel, HookModel, Input, ToolModel};

pub fn tool(model: &ToolModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::__private);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let name = &model.name;
    let label = &model.label;
    let description = &model.description;
    let snippet = match &model.prompt_snippet {
        Some(s) => quote!(::core::option::Option::Some(#s)),
        None => quote!(::core::option::Option::None),
    };
    let guidelines = &model.prompt_guidelines;
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
    for input in &model.inputs {
        match input {
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

    let ret = model.return_type();
    let ret_check = quote_spanned!(model.return_span()=> #private::assert_return::<#ret>(););
    // Errors about the body's future (wrong return type, not `Send`) point
    // at the user's return type.
    let sig_span = model.return_span();
    let body = if model.is_async() {
        quote_spanned! {sig_span=>
            #private::call_async::<#params_ty, _, _>(#name, __ctx, __args, |__ctx, __params: #params_ty| async move {
                #destructure
                #fn_ident(#(#call_args),*).await
            })
        }
    } else {
        quote_spanned! {sig_span=>
            #private::call_sync::<#params_ty, _, _>(#name, __ctx, __args, move |__ctx, __params: #params_ty| {
                #destructure
                #fn_ident(#(#call_args),*)
            })
        }
    };

    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #params_def

            #[allow(unused_variables, clippy::clone_on_ref_ptr, clippy::redundant_clone)]
            fn __pi_ext_call(__ctx: #krate::Ctx, __args: #private::Value) -> #private::ToolFuture {
                #body
            }

            #[allow(dead_code)]
            fn __pi_ext_checks() {
                #(#checks)*
                #ret_check
            }

            #private::inventory::submit! {
                #private::ToolEntry {
                    name: #name,
                    label: #label,
                    description: #description,
                    prompt_snippet: #snippet,
                    prompt_guidelines: &[#(#guidelines),*],
                    schema: #private::portable_schema_for::<#params_ty>,
                    call: __pi_ext_call,
                }
            }
        };
    }
}

pub fn extension(model: &ExtensionModel, item: &syn::Item) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::__private);
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
    quote! {
        // The type is the extension's identity; it need not be constructed.
        #[allow(dead_code)]
        #item

        #private::inventory::submit! {
            #private::ExtensionEntry {
                name: #name,
                version: #version,
                description: #description,
            }
        }
    }
}

pub fn hook(model: &HookModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::__private);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let event = &model.event;
    let priority = model.priority;
    let id = fn_ident.to_string();
    let id = id.trim_start_matches("r#");
    let ctx_arg = match model.ctx {
        Some(true) => quote!(&__ctx,),
        Some(false) => quote!(__ctx.clone(),),
        None => quote!(),
    };
    let call = if func.sig.asyncness.is_some() {
        quote!(#fn_ident(#ctx_arg __event).await)
    } else {
        quote!(#fn_ident(#ctx_arg __event))
    };
    let ret = match &func.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let ret_span = match &func.sig.output {
        syn::ReturnType::Default => fn_ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    let event_check = quote_spanned!(event.span()=> #private::assert_event::<#event>(););
    let event_name = quote_spanned!(event.span()=> <#event as #private::Event>::NAME);
    let ret_check = quote_spanned!(ret_span=> #private::assert_hook_return::<#event, #ret>(););
    let body = quote_spanned! {ret_span=>
        #private::call_hook::<#event, _, _>(__ctx, __payload, |__ctx, __event| async move { #call })
    };
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #[allow(unused_variables)]
            fn __pi_ext_hook(__ctx: #krate::Ctx, __payload: #private::Value) -> #private::HandlerFuture {
                #body
            }

            #[allow(dead_code)]
            fn __pi_ext_checks() {
                #event_check
                #ret_check
            }

            #private::inventory::submit! {
                #private::HookEntry {
                    event: #event_name,
                    id: ::core::concat!(::core::module_path!(), "::", #id),
                    priority: #priority,
                    call: __pi_ext_hook,
                }
            }
        };
    }
}

pub fn command(model: &CommandModel) -> TokenStream {
    let krate = &model.krate;
    let private = quote!(#krate::__private);
    let func = &model.func;
    let fn_ident = &func.sig.ident;
    let name = &model.name;
    let description = &model.description;
    let completions = &model.completions;
    let ctx_arg = match model.ctx {
        Some((true, _)) => quote!(&__ctx,),
        Some((false, false)) => quote!(__ctx.clone(),),
        Some((false, true)) => quote!(__ctx.ctx().clone(),),
        None => quote!(),
    };
    let (args_ty, args_arg) = match &model.args {
        Some(ty) => (quote!(#ty), quote!(__args)),
        None => (quote!(::std::string::String), quote!()),
    };
    let call = if func.sig.asyncness.is_some() {
        quote!(#fn_ident(#ctx_arg #args_arg).await)
    } else {
        quote!(#fn_ident(#ctx_arg #args_arg))
    };
    let ret = match &func.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let ret_span = match &func.sig.output {
        syn::ReturnType::Default => fn_ident.span(),
        syn::ReturnType::Type(_, ty) => ty.span(),
    };
    let mut checks = vec![quote_spanned!(ret_span=> #private::assert_command_return::<#ret>();)];
    if let Some(ty) = &model.args {
        checks.push(quote_spanned!(ty.span()=> #private::assert_args::<#ty>();));
    }
    if let Some(ty) = &model.ctx_ty {
        checks.push(quote_spanned!(ty.span()=> #private::assert_command_ctx::<#ty>();));
    }
    let body = quote_spanned! {ret_span=>
        #private::call_command::<#args_ty, _, _>(__ctx, __args, |__ctx, __args| async move { #call })
    };
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #[allow(unused_variables)]
            fn __pi_ext_command(__ctx: #krate::CommandCtx, __args: ::std::string::String) -> #private::HandlerFuture {
                #body
            }

            #[allow(dead_code)]
            fn __pi_ext_checks() {
                #(#checks)*
            }

            #private::inventory::submit! {
                #private::CommandEntry {
                    name: #name,
                    description: #description,
                    completions: &[#(#completions),*],
                    call: __pi_ext_command,
                }
            }
        };
    }
}
