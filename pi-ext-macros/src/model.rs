//! Model: what a `#[tool]`, `#[hook]`, `#[command]` or `#[extension]` declares,
//! validated, with the spans needed to point errors at the user's tokens.

use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Ident, ItemFn, LitStr, Pat, PathArguments, Type};

use crate::parse::{
    bool_value, choice_value, doc_string, duration_ms_value, flag_value, string_list_value,
    string_value, Errors, KeyValues, Keys,
};

/// A validated `#[tool]`.
pub struct ToolModel {
    pub func: ItemFn,
    pub name: String,
    pub label: String,
    pub description: String,
    pub prompt_snippet: Option<String>,
    pub prompt_guidelines: Vec<String>,
    /// `timeout = "30s"`: the bridge fails the call after this long.
    pub timeout_ms: Option<u64>,
    /// The flag keys given ([`TOOL_FLAGS`]): each is a `ToolBuilder` method
    /// of the same name, without arguments.
    pub flags: Vec<Ident>,
    /// `render = MyRows`: how the tool's rows look in pi's terminal.
    pub render: Option<syn::Expr>,
    /// `output = T`: the type of the results' `structuredContent`.
    pub output: Option<Type>,
    /// `read_only_hint`, `destructive_hint`, `idempotent_hint`, `open_world_hint`.
    pub annotations: [Option<bool>; 4],
    /// The keys of [`TOOL_VALUE_KEYS`] given, with their values: each calls
    /// the `ToolBuilder` method of its name with the value.
    pub values: Vec<(Ident, proc_macro2::TokenStream)>,
    /// `exposure = "codemode"`.
    pub exposure: Option<String>,
    /// `namespace = "mcp__docs"`.
    pub namespace: Option<String>,
    /// `constrained_sampling = "prefer" | "require"`.
    pub constrained_sampling: Option<String>,
    /// `prepare_arguments = f`: rewrites raw arguments before validation.
    pub prepare_arguments: Option<syn::Expr>,
    pub inputs: Vec<Input>,
    pub krate: syn::Path,
}

/// One argument of a tool function.
pub enum Input {
    /// `ctx: &Ctx` or `ctx: Ctx`.
    Ctx { by_ref: bool, ty: Type },
    /// `Params(p): Params<T>`: the whole input as `T`.
    Params { inner: Type },
    /// `&MyExtension`: an extension's state.
    State { ty: Type },
    /// A plain argument: becomes a field of the synthesized params struct.
    Field {
        ident: Ident,
        ty: Type,
        description: Option<String>,
        default: bool,
    },
}

/// The `#[tool]` keys that are a bare flag: each calls the `ToolBuilder`
/// method of its name (`overrides_builtin`: replacing pi's built-in tool of
/// this name is meant; `sequential`: pi runs a batch with this tool one
/// call at a time; `reaches_all_tools`: a call may reach any tool;
/// `own_shell`: pi draws no shell around its rows).
const TOOL_FLAGS: &[&str] = &[
    "overrides_builtin",
    "sequential",
    "reaches_all_tools",
    "own_shell",
];

/// The `#[tool]` keys that take one literal and call the `ToolBuilder`
/// method of their name with it (`default_active = false`:
/// `.default_active(false)`, pi's `defaultActive`). A tool definition field
/// of this shape needs a row here, the builder method, the manifest's field
/// and the bridge's row (`TOOL_FIELDS` in bridge/lib/features.js).
const TOOL_VALUE_KEYS: &[(&str, ValueKind)] = &[("default_active", ValueKind::Bool)];

/// The literal a key of [`TOOL_VALUE_KEYS`] takes.
#[derive(Clone, Copy)]
enum ValueKind {
    Bool,
}

/// What `key` of [`TOOL_VALUE_KEYS`] takes; `None` for other keys.
fn value_kind(key: &str) -> Option<ValueKind> {
    TOOL_VALUE_KEYS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, kind)| *kind)
}

const TOOL_KEYS: &[&str] = &[
    "name",
    "label",
    "description",
    "prompt_snippet",
    "prompt_guidelines",
    "timeout",
    "overrides_builtin",
    "render",
    "sequential",
    "output",
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
    "default_active",
    "exposure",
    "namespace",
    "constrained_sampling",
    "reaches_all_tools",
    "prepare_arguments",
    "own_shell",
    "crate",
];

/// pi's tool exposures.
const EXPOSURES: &[&str] = &["direct", "model-only", "codemode", "deferred", "hidden"];

/// The annotation keys, in `ToolModel::annotations` order.
const HINTS: &[&str] = &[
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
];

/// pi's built-in tools (pi 1.6's list; 0.73.1 has no `powershell`). The one
/// copy: the runtime takes it through `__builtin_tools!` (lib.rs).
pub(crate) const BUILTIN_TOOLS: &[&str] = &[
    "read",
    "bash",
    "powershell",
    "edit",
    "write",
    "grep",
    "find",
    "ls",
];
const ARG_KEYS: &[&str] = &["description", "default"];
const EXTENSION_KEYS: &[&str] = &[
    "name",
    "version",
    "description",
    "dependencies",
    "settings",
    "on_load",
    "on_unload",
    "crate",
];
const HOOK_KEYS: &[&str] = &["priority", "timeout", "crate"];
const COMMAND_KEYS: &[&str] = &["name", "description", "completions", "shortcut", "crate"];

fn krate_from(kv: &crate::parse::KeyValue, errors: &mut Errors) -> Option<syn::Path> {
    match string_value(kv).and_then(|s| s.parse::<syn::Path>()) {
        Ok(p) => Some(p),
        Err(e) => {
            errors.push(e);
            None
        }
    }
}

fn default_krate() -> syn::Path {
    syn::parse_quote!(::pi_ext)
}

/// The last path segment of a type, if it is a plain path (`a::b::Ctx` → `Ctx`).
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn is_ctx(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Ctx" && s.arguments.is_none())
}

/// `Params<T>` → `T`.
fn params_inner(ty: &Type) -> Option<&Type> {
    let seg = last_segment(ty)?;
    if seg.ident != "Params" {
        return None;
    }
    match &seg.arguments {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// The type of `output = T`.
fn output_type(kv: &crate::parse::KeyValue) -> syn::Result<Type> {
    let hint = "`output` takes the type of the results' structured content, e.g. `output = MyResult` (a struct deriving `serde::Serialize` and `schemars::JsonSchema`)";
    match &kv.value {
        Some(syn::Expr::Path(p)) if p.attrs.is_empty() => Ok(Type::Path(syn::TypePath {
            qself: p.qself.clone(),
            path: p.path.clone(),
        })),
        Some(other) => Err(syn::Error::new_spanned(other, hint)),
        None => Err(syn::Error::new(kv.key.span(), hint)),
    }
}

/// Check a tool name at compile time (the runtime checks again).
fn check_tool_name(name: &str, span: Span, errors: &mut Errors) {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !ok {
        errors.push_at(
            span,
            format!("invalid tool name `{name}`: LLM providers accept only letters, digits, `_` and `-`, 1 to 64 characters"),
        );
    }
}

impl ToolModel {
    pub fn build(attr: TokenStream, func: ItemFn) -> (ItemFn, syn::Result<ToolModel>) {
        let mut errors = Errors::default();
        let mut func = func;

        let mut name_lit: Option<LitStr> = None;
        let mut label = None;
        let mut description = None;
        let mut prompt_snippet = None;
        let mut prompt_guidelines = Vec::new();
        let mut timeout_ms = None;
        let mut overrides_builtin: Option<Span> = None;
        let mut render = None;
        let mut output = None;
        let mut annotations = [None; 4];
        let mut values = Vec::new();
        let mut exposure = None;
        let mut namespace = None;
        let mut constrained_sampling = None;
        let mut flags = Vec::new();
        let mut prepare_arguments = None;
        let mut krate = default_krate();
        match syn::parse2::<KeyValues>(attr) {
            Ok(KeyValues(kvs)) => {
                let mut keys = Keys::new("tool", TOOL_KEYS);
                for kv in &kvs {
                    let Some(key) = keys.check(kv, &mut errors) else {
                        continue;
                    };
                    let res = match key.as_str() {
                        "name" => string_value(kv).map(|s| name_lit = Some(s)),
                        "label" => string_value(kv).map(|s| label = Some(s.value())),
                        "description" => string_value(kv).map(|s| description = Some(s.value())),
                        "prompt_snippet" => {
                            string_value(kv).map(|s| prompt_snippet = Some(s.value()))
                        }
                        "prompt_guidelines" => string_list_value(kv)
                            .map(|l| prompt_guidelines = l.iter().map(LitStr::value).collect()),
                        "timeout" => duration_ms_value(kv).map(|ms| timeout_ms = Some(ms)),
                        flag if TOOL_FLAGS.contains(&flag) => flag_value(kv).map(|()| {
                            if flag == "overrides_builtin" {
                                overrides_builtin = Some(kv.key.span());
                            }
                            flags.push(Ident::new(flag, kv.key.span()));
                        }),
                        "render" => match &kv.value {
                            Some(e) => {
                                render = Some(e.clone());
                                Ok(())
                            }
                            None => Err(syn::Error::new(
                                kv.key.span(),
                                "`render` takes the renderer, e.g. `render = MyRows` (a value of a type implementing `pi_ext::tui::ToolRender`)",
                            )),
                        },
                        "output" => output_type(kv).map(|t| output = Some(t)),
                        hint if HINTS.contains(&hint) => bool_value(kv).map(|b| {
                            let i = HINTS.iter().position(|h| *h == hint).unwrap_or(0);
                            annotations[i] = Some(b);
                        }),
                        key if value_kind(key).is_some() => {
                            let value = match value_kind(key) {
                                Some(ValueKind::Bool) => bool_value(kv).map(|b| quote::quote!(#b)),
                                None => unreachable!("the guard found it"),
                            };
                            value.map(|v| values.push((Ident::new(key, kv.key.span()), v)))
                        }
                        "exposure" => {
                            choice_value(kv, EXPOSURES).map(|s| exposure = Some(s.value()))
                        }
                        "namespace" => string_value(kv).and_then(|s| {
                            if s.value().is_empty() {
                                Err(syn::Error::new(s.span(), "`namespace` needs a name, e.g. `namespace = \"mcp__docs\"`"))
                            } else {
                                namespace = Some(s.value());
                                Ok(())
                            }
                        }),
                        "constrained_sampling" => choice_value(kv, &["prefer", "require"])
                            .map(|s| constrained_sampling = Some(s.value())),
                        "prepare_arguments" => match &kv.value {
                            Some(e) => {
                                prepare_arguments = Some(e.clone());
                                Ok(())
                            }
                            None => Err(syn::Error::new(
                                kv.key.span(),
                                "`prepare_arguments` takes a function, e.g. `prepare_arguments = upgrade_args` (`fn(serde_json::Value) -> serde_json::Value`, or `-> Result<serde_json::Value, E>` with `E: Display`)",
                            )),
                        },
                        "crate" => {
                            if let Some(p) = krate_from(kv, &mut errors) {
                                krate = p;
                            }
                            Ok(())
                        }
                        _ => unreachable!("checked against TOOL_KEYS"),
                    };
                    if let Err(e) = res {
                        errors.push(e);
                    }
                }
            }
            Err(e) => errors.push(e),
        }

        let sig = &func.sig;
        if let Some(g) = sig.generics.params.first() {
            errors.push_at(
                g.span(),
                "tool functions cannot be generic: pi calls them with JSON, so every type must be concrete",
            );
        }
        if let Some(c) = &sig.constness {
            errors.push_at(c.span, "a tool cannot be a `const fn`");
        }
        if let Some(u) = &sig.unsafety {
            errors.push_at(u.span, "a tool cannot be an `unsafe fn`");
        }
        if let Some(v) = &sig.variadic {
            errors.push_at(v.span(), "a tool cannot be variadic");
        }

        let fn_name = sig.ident.to_string();
        let fn_name = fn_name.strip_prefix("r#").unwrap_or(&fn_name).to_string();
        let name_span = name_lit.as_ref().map_or(sig.ident.span(), LitStr::span);
        let name = match &name_lit {
            Some(lit) => lit.value(),
            None => fn_name,
        };
        check_tool_name(&name, name_span, &mut errors);
        match (BUILTIN_TOOLS.contains(&name.as_str()), overrides_builtin) {
            (true, None) => errors.push_at(
                name_span,
                format!("tool `{name}` would replace pi's built-in `{name}` tool: rename it (e.g. `#[tool(name = \"my_{name}\")]`), or add `overrides_builtin` to `#[tool]` if replacing it is what you want"),
            ),
            (false, Some(span)) => errors.push_at(
                span,
                format!("`overrides_builtin` is for tools named like one of pi's built-in tools ({}); `{name}` is not one: remove it", BUILTIN_TOOLS.join(", ")),
            ),
            _ => {}
        }

        let description = description.or_else(|| doc_string(&func.attrs));
        if description.is_none() {
            errors.push_at(
                sig.ident.span(),
                "a tool needs a description for the model: add a `///` doc comment above the function, or `#[tool(description = \"…\")]`",
            );
        }

        let mut inputs = Vec::new();
        let mut params_span: Option<Span> = None;
        let mut first_field_span: Option<Span> = None;
        for arg in func.sig.inputs.iter_mut() {
            let pat_type = match arg {
                FnArg::Receiver(r) => {
                    errors.push_at(
                        r.span(),
                        "a tool must be a free function, not a method: take shared state through the extension instead of `self`",
                    );
                    continue;
                }
                FnArg::Typed(p) => p,
            };
            // Strip our helper attribute wherever it is, so the function
            // compiles even when we report errors.
            let mut arg_attrs = Vec::new();
            pat_type.attrs.retain(|a| {
                if a.path().is_ident("arg") {
                    arg_attrs.push(a.clone());
                    false
                } else {
                    true
                }
            });
            let ty = (*pat_type.ty).clone();
            if !concrete_type(&ty, Item::Tool, &mut errors) {
                continue;
            }
            let (core_ty, by_ref) = match &ty {
                Type::Reference(r) => ((*r.elem).clone(), true),
                other => (other.clone(), false),
            };
            if is_ctx(&core_ty) {
                for a in &arg_attrs {
                    errors.push_at(
                        a.span(),
                        "`#[arg]` belongs on tool parameters, not on the context",
                    );
                }
                if let Type::Reference(r) = &ty {
                    if r.mutability.is_some() {
                        errors.push_at(
                            r.span(),
                            "take the context as `&Ctx` or `Ctx`, not `&mut Ctx`",
                        );
                    }
                    lent_ctx(r, &mut errors);
                }
                inputs.push(Input::Ctx {
                    by_ref,
                    ty: core_ty,
                });
                continue;
            }
            if let Some(inner) = params_inner(&core_ty) {
                for a in &arg_attrs {
                    errors.push_at(a.span(), "`#[arg]` documents plain arguments; document the fields of the `Params` struct instead");
                }
                if by_ref {
                    errors.push_at(ty.span(), "take `Params<T>` by value, not by reference");
                }
                if params_span.is_some() {
                    errors.push_at(ty.span(), "a tool takes at most one `Params<T>` argument");
                }
                params_span = Some(ty.span());
                inputs.push(Input::Params {
                    inner: inner.clone(),
                });
                continue;
            }
            if by_ref && looks_like_data(&core_ty) {
                errors.push_at(
                    ty.span(),
                    "tool parameters are owned values decoded from JSON: write `String` instead of `&str`, `T` instead of `&T` (only the context `&Ctx` and an extension's state `&MyExtension` are borrowed)",
                );
                continue;
            }
            if by_ref {
                // Borrowed: an extension's state (checked at compile time).
                for a in &arg_attrs {
                    errors.push_at(
                        a.span(),
                        "`#[arg]` belongs on tool parameters, not on extension state",
                    );
                }
                if let Type::Reference(r) = &ty {
                    mut_state(r, &mut errors);
                }
                inputs.push(Input::State { ty: core_ty });
                continue;
            }
            let ident = match &*pat_type.pat {
                Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => pi.ident.clone(),
                Pat::Wild(w) => {
                    errors.push_at(
                        w.span(),
                        "name this argument (e.g. `text: String`): its name becomes the JSON property the model fills in, and `_` gives it none",
                    );
                    continue;
                }
                other => {
                    errors.push_at(
                        other.span(),
                        "tool parameters must be plain names (`name: String`): the name becomes the JSON property",
                    );
                    continue;
                }
            };
            first_field_span.get_or_insert(ident.span());
            let mut arg_description = None;
            let mut default = false;
            for a in &arg_attrs {
                match a.parse_args::<KeyValues>() {
                    Ok(KeyValues(kvs)) => {
                        let mut keys = Keys::new("arg", ARG_KEYS);
                        for kv in &kvs {
                            match keys.check(kv, &mut errors).as_deref() {
                                Some("description") => match string_value(kv) {
                                    Ok(s) => arg_description = Some(s.value()),
                                    Err(e) => errors.push(e),
                                },
                                Some("default") => match flag_value(kv) {
                                    Ok(()) => default = true,
                                    Err(e) => errors.push(e),
                                },
                                _ => {}
                            }
                        }
                    }
                    Err(e) => errors.push(e),
                }
            }
            inputs.push(Input::Field {
                ident,
                ty,
                description: arg_description,
                default,
            });
        }
        if let (Some(_), Some(f)) = (params_span, first_field_span) {
            errors.push_at(
                f,
                "a tool takes either plain arguments or one `Params<T>`, not both: this tool also takes a `Params<T>`, so move this argument into that struct",
            );
        }

        let label = label.unwrap_or_else(|| name.clone());
        let result = errors.finish().map(|()| ToolModel {
            func: func.clone(),
            name,
            label,
            description: description.unwrap_or_default(),
            prompt_snippet,
            prompt_guidelines,
            timeout_ms,
            flags,
            render,
            output,
            annotations,
            values,
            exposure,
            namespace,
            constrained_sampling,
            prepare_arguments,
            inputs,
            krate,
        });
        (func, result)
    }

    pub fn is_async(&self) -> bool {
        self.func.sig.asyncness.is_some()
    }
}

/// A validated `#[extension]`.
pub struct ExtensionModel {
    pub ident: Ident,
    pub name: Option<String>,
    pub version: Option<String>,
    pub description: Option<String>,
    pub dependencies: Vec<String>,
    pub settings: Option<syn::Path>,
    pub on_load: Option<syn::Path>,
    pub on_unload: Option<syn::Path>,
    /// `struct X;`: the value is its own state.
    pub unit: bool,
    pub krate: syn::Path,
}

impl ExtensionModel {
    pub fn build(attr: TokenStream, item: &syn::Item) -> syn::Result<ExtensionModel> {
        let mut errors = Errors::default();
        let (attrs, ident, unit) = match item {
            syn::Item::Struct(s) => (&s.attrs, s.ident.clone(), matches!(s.fields, syn::Fields::Unit)),
            syn::Item::Enum(e) => (&e.attrs, e.ident.clone(), false),
            other => {
                return Err(syn::Error::new(
                    item_span(other),
                    "`#[extension]` goes on the extension's type: a `struct` (e.g. `struct Hello;`) or an `enum`",
                ))
            }
        };
        if let syn::Item::Struct(s) = item {
            if let Some(g) = s.generics.params.first() {
                errors.push_at(g.span(), "an #[extension] type cannot be generic");
            }
        }
        let mut model = ExtensionModel {
            ident,
            name: None,
            version: None,
            description: doc_string(attrs),
            dependencies: Vec::new(),
            settings: None,
            on_load: None,
            on_unload: None,
            unit,
            krate: default_krate(),
        };
        match syn::parse2::<KeyValues>(attr) {
            Ok(KeyValues(kvs)) => {
                let mut keys = Keys::new("extension", EXTENSION_KEYS);
                for kv in &kvs {
                    let Some(key) = keys.check(kv, &mut errors) else {
                        continue;
                    };
                    if key == "crate" {
                        if let Some(p) = krate_from(kv, &mut errors) {
                            model.krate = p;
                        }
                        continue;
                    }
                    if key == "dependencies" {
                        match string_list_value(kv) {
                            Ok(l) => model.dependencies = l.iter().map(LitStr::value).collect(),
                            Err(e) => errors.push(e),
                        }
                        continue;
                    }
                    if matches!(key.as_str(), "settings" | "on_load" | "on_unload") {
                        match path_value(kv) {
                            Ok(p) => match key.as_str() {
                                "settings" => model.settings = Some(p),
                                "on_load" => model.on_load = Some(p),
                                _ => model.on_unload = Some(p),
                            },
                            Err(e) => errors.push(e),
                        }
                        continue;
                    }
                    let lit = match string_value(kv) {
                        Ok(l) => l,
                        Err(e) => {
                            errors.push(e);
                            continue;
                        }
                    };
                    match key.as_str() {
                        "name" => {
                            let v = lit.value();
                            let ok = !v.is_empty()
                                && v.len() <= 64
                                && v.bytes().all(|b| {
                                    b.is_ascii_lowercase()
                                        || b.is_ascii_digit()
                                        || b == b'-'
                                        || b == b'_'
                                });
                            if !ok {
                                errors.push_at(
                                    lit.span(),
                                    format!("invalid extension name `{v}`: use lowercase letters, digits, `-` and `_` (it becomes a directory name)"),
                                );
                            }
                            model.name = Some(v);
                        }
                        "version" => model.version = Some(lit.value()),
                        "description" => model.description = Some(lit.value()),
                        _ => unreachable!("checked against EXTENSION_KEYS"),
                    }
                }
            }
            Err(e) => errors.push(e),
        }
        errors.finish().map(|()| model)
    }
}

/// The span that names an item (its identifier), for "wrong kind of item" errors.
pub fn item_span(item: &syn::Item) -> Span {
    match item {
        syn::Item::Struct(s) => s.ident.span(),
        syn::Item::Enum(e) => e.ident.span(),
        syn::Item::Const(c) => c.ident.span(),
        syn::Item::Static(s) => s.ident.span(),
        syn::Item::Fn(f) => f.sig.ident.span(),
        syn::Item::Impl(i) => i.impl_token.span,
        syn::Item::Mod(m) => m.ident.span(),
        syn::Item::Trait(t) => t.ident.span(),
        other => other.span(),
    }
}

/// One argument of a hook or command, in order.
pub enum HandlerArg {
    /// The context (its type), by reference or not.
    Ctx { by_ref: bool, ty: Box<Type> },
    /// `&MyExtension`.
    State(Box<Type>),
    /// The event (hooks) or the argument value (commands).
    Value,
}

/// The parts of a handler signature shared by hooks and commands.
struct Handler {
    /// Whether the function takes a context.
    ctx: bool,
    /// The other arguments (pattern-free: only their types matter).
    values: Vec<Type>,
    /// Every argument in order.
    order: Vec<HandlerArg>,
}

/// Split a handler's arguments into the context (`ctx_names`) and the rest,
/// reporting receivers, generics and `#[arg]` misuse.
fn handler_inputs(func: &ItemFn, item: Item, ctx_names: &[&str], errors: &mut Errors) -> Handler {
    let what = item.name();
    let sig = &func.sig;
    if let Some(g) = sig.generics.params.first() {
        errors.push_at(g.span(), format!("{what} functions cannot be generic"));
    }
    let mut handler = Handler {
        ctx: false,
        values: Vec::new(),
        order: Vec::new(),
    };
    for arg in &sig.inputs {
        let pat_type = match arg {
            FnArg::Receiver(r) => {
                errors.push_at(
                    r.span(),
                    format!("a {what} must be a free function, not a method"),
                );
                continue;
            }
            FnArg::Typed(p) => p,
        };
        if let Some(a) = pat_type.attrs.iter().find(|a| a.path().is_ident("arg")) {
            errors.push_at(a.span(), "`#[arg]` is only for `#[tool]` parameters");
        }
        let ty = (*pat_type.ty).clone();
        if !concrete_type(&ty, item, errors) {
            handler.order.push(HandlerArg::Value);
            handler.values.push(ty);
            continue;
        }
        let (core, by_ref) = match &ty {
            Type::Reference(r) => ((*r.elem).clone(), true),
            other => (other.clone(), false),
        };
        let is_ctx = last_segment(&core)
            .is_some_and(|s| ctx_names.iter().any(|n| s.ident == n) && s.arguments.is_none());
        if is_ctx {
            if handler.ctx {
                errors.push_at(
                    ty.span(),
                    "the context is already taken by an earlier argument",
                );
            }
            if let Type::Reference(r) = &ty {
                if let Some(m) = &r.mutability {
                    errors.push_at(
                        m.span(),
                        "take the context as a shared reference (`&Ctx`) or by value, not `&mut`",
                    );
                }
                lent_ctx(r, errors);
            }
            handler.order.push(HandlerArg::Ctx {
                by_ref,
                ty: Box::new(core),
            });
            handler.ctx = true;
        } else if let Type::Reference(r) = &ty {
            // Borrowed: an extension's state (checked at compile time).
            mut_state(r, errors);
            handler.order.push(HandlerArg::State(Box::new(core)));
        } else {
            handler.order.push(HandlerArg::Value);
            handler.values.push(ty);
        }
    }
    handler
}

fn strip_arg_attrs(func: &mut ItemFn) {
    for arg in func.sig.inputs.iter_mut() {
        if let FnArg::Typed(p) = arg {
            p.attrs.retain(|a| !a.path().is_ident("arg"));
        }
    }
}

/// A validated `#[hook]`.
pub struct HookModel {
    pub func: ItemFn,
    pub priority: i32,
    /// `timeout = "2m"`: how long pi waits for the hook (default 30 s).
    pub timeout_ms: Option<u64>,
    pub event: Type,
    pub args: Vec<HandlerArg>,
    pub krate: syn::Path,
}

impl HookModel {
    pub fn build(attr: TokenStream, mut func: ItemFn) -> (ItemFn, syn::Result<HookModel>) {
        let mut errors = Errors::default();
        let mut priority = 0i32;
        let mut timeout_ms = None;
        let mut krate = default_krate();
        match syn::parse2::<KeyValues>(attr) {
            Ok(KeyValues(kvs)) => {
                let mut keys = Keys::new("hook", HOOK_KEYS);
                for kv in &kvs {
                    match keys.check(kv, &mut errors).as_deref() {
                        Some("priority") => match int_value(kv) {
                            Ok(p) => priority = p,
                            Err(e) => errors.push(e),
                        },
                        Some("timeout") => match duration_ms_value(kv) {
                            Ok(ms) => timeout_ms = Some(ms),
                            Err(e) => errors.push(e),
                        },
                        Some("crate") => {
                            if let Some(p) = krate_from(kv, &mut errors) {
                                krate = p;
                            }
                        }
                        _ => {}
                    }
                }
            }
            Err(e) => errors.push(e),
        }
        let handler = handler_inputs(&func, Item::Hook, &["Ctx"], &mut errors);
        let event = match handler.values.as_slice() {
            [event] => Some(event.clone()),
            [] => {
                errors.push_at(
                    func.sig.ident.span(),
                    "a hook takes the event it subscribes to as an argument, e.g. `event: ToolCallEvent` (see `pi_ext::events`)",
                );
                None
            }
            [_, extra, ..] => {
                errors.push_at(
                    extra.span(),
                    "a hook takes one event argument (and optionally `ctx: &Ctx`); remove this one",
                );
                None
            }
        };
        strip_arg_attrs(&mut func);
        let result = errors.finish().map(|()| HookModel {
            func: func.clone(),
            priority,
            timeout_ms,
            event: event.expect("reported above"),
            args: handler.order,
            krate,
        });
        (func, result)
    }
}

/// A validated `#[command]`.
pub struct CommandModel {
    pub func: ItemFn,
    pub name: String,
    pub description: String,
    pub completions: Vec<String>,
    /// `completions = path`: a function computing them at run time.
    pub complete: Option<syn::Path>,
    /// A key (`ctrl+shift+g`) that also runs the command in the terminal UI.
    pub shortcut: Option<String>,
    /// `#[shortcut]`: the key alone, no command in pi's list.
    pub shortcut_only: bool,
    pub args: Option<Type>,
    pub order: Vec<HandlerArg>,
    pub krate: syn::Path,
}

impl CommandModel {
    pub fn build(attr: TokenStream, mut func: ItemFn) -> (ItemFn, syn::Result<CommandModel>) {
        let mut errors = Errors::default();
        let mut name_lit: Option<LitStr> = None;
        let mut description = None;
        let mut completions = Vec::new();
        let mut complete = None;
        let mut shortcut = None;
        let mut krate = default_krate();
        match syn::parse2::<KeyValues>(attr) {
            Ok(KeyValues(kvs)) => {
                let mut keys = Keys::new("command", COMMAND_KEYS);
                for kv in &kvs {
                    let res = match keys.check(kv, &mut errors).as_deref() {
                        Some("name") => string_value(kv).map(|s| name_lit = Some(s)),
                        Some("description") => {
                            string_value(kv).map(|s| description = Some(s.value()))
                        }
                        Some("completions") => match &kv.value {
                            // A function: completions computed at run time.
                            Some(syn::Expr::Path(p)) => {
                                complete = Some(p.path.clone());
                                Ok(())
                            }
                            _ => string_list_value(kv)
                                .map(|l| completions = l.iter().map(LitStr::value).collect()),
                        },
                        Some("shortcut") => string_value(kv)
                            .and_then(|s| key_id(&s))
                            .map(|key| shortcut = Some(key)),
                        Some("crate") => {
                            if let Some(p) = krate_from(kv, &mut errors) {
                                krate = p;
                            }
                            Ok(())
                        }
                        _ => Ok(()),
                    };
                    if let Err(e) = res {
                        errors.push(e);
                    }
                }
            }
            Err(e) => errors.push(e),
        }
        let fn_name = func.sig.ident.to_string();
        let fn_name = fn_name.strip_prefix("r#").unwrap_or(&fn_name).to_string();
        let (name, span) = match &name_lit {
            Some(l) => (l.value(), l.span()),
            None => (fn_name, func.sig.ident.span()),
        };
        let valid = !name.is_empty()
            && !name.starts_with('/')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == ':');
        if !valid {
            errors.push_at(
                span,
                format!("invalid command name `{name}`: use letters, digits, `-`, `_` and `:`, without the leading `/`"),
            );
        }
        let description = description.or_else(|| doc_string(&func.attrs));
        if description.is_none() {
            errors.push_at(
                func.sig.ident.span(),
                "a command needs a description: add a `///` doc comment above the function, or `#[command(description = \"…\")]`",
            );
        }
        let handler = handler_inputs(&func, Item::Command, &["CommandCtx", "Ctx"], &mut errors);
        if let [_, extra, ..] = handler.values.as_slice() {
            errors.push_at(
                extra.span(),
                "a command takes at most one argument value (plus `ctx: &CommandCtx`): the text after `/name`",
            );
        }
        strip_arg_attrs(&mut func);
        let result = errors.finish().map(|()| CommandModel {
            func: func.clone(),
            name,
            description: description.unwrap_or_default(),
            completions,
            complete,
            shortcut,
            shortcut_only: false,
            args: handler.values.first().cloned(),
            order: handler.order,
            krate,
        });
        (func, result)
    }
}

const SHORTCUT_KEYS: &[&str] = &["description", "crate"];

/// `#[shortcut("ctrl+shift+u", description = "…")]`: the key, then keys.
struct ShortcutAttr(LitStr, KeyValues);

impl syn::parse::Parse for ShortcutAttr {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let key: LitStr = input.parse()?;
        if !input.is_empty() {
            input.parse::<syn::Token![,]>()?;
        }
        Ok(ShortcutAttr(key, input.parse()?))
    }
}

impl CommandModel {
    /// A `#[shortcut]`: a command pi does not list, run by its key only.
    pub fn build_shortcut(
        attr: TokenStream,
        mut func: ItemFn,
    ) -> (ItemFn, syn::Result<CommandModel>) {
        let mut errors = Errors::default();
        let mut key = None;
        let mut description = None;
        let mut krate = default_krate();
        match syn::parse2::<ShortcutAttr>(attr.clone()) {
            Ok(ShortcutAttr(lit, KeyValues(kvs))) => {
                match key_id(&lit) {
                    Ok(k) => key = Some(k),
                    Err(e) => errors.push(e),
                }
                let mut keys = Keys::new("shortcut", SHORTCUT_KEYS);
                for kv in &kvs {
                    let res = match keys.check(kv, &mut errors).as_deref() {
                        Some("description") => {
                            string_value(kv).map(|s| description = Some(s.value()))
                        }
                        Some("crate") => {
                            if let Some(p) = krate_from(kv, &mut errors) {
                                krate = p;
                            }
                            Ok(())
                        }
                        _ => Ok(()),
                    };
                    if let Err(e) = res {
                        errors.push(e);
                    }
                }
            }
            Err(_) => {
                let span = if attr.is_empty() {
                    func.sig.ident.span()
                } else {
                    attr.span()
                };
                errors.push_at(
                    span,
                    "`#[shortcut]` takes its key first: `#[shortcut(\"ctrl+shift+u\")]` or `#[shortcut(\"ctrl+shift+u\", description = \"…\")]`",
                );
            }
        }
        let description = description.or_else(|| doc_string(&func.attrs));
        if description.is_none() {
            errors.push_at(
                func.sig.ident.span(),
                "a shortcut needs a description (pi lists it in `/hotkeys`): add a `///` doc comment above the function, or `#[shortcut(\"…\", description = \"…\")]`",
            );
        }
        let handler = handler_inputs(&func, Item::Command, &["CommandCtx", "Ctx"], &mut errors);
        if let Some(value) = handler.values.first() {
            errors.push_at(
                value.span(),
                "a shortcut takes no argument value (only `ctx: &CommandCtx` and the extension's state): a key has no text after it",
            );
        }
        strip_arg_attrs(&mut func);
        let result = errors.finish().map(|()| {
            let key = key.expect("checked above");
            CommandModel {
                func: func.clone(),
                // The wire name of the command behind the key; pi never lists it.
                name: format!("shortcut:{key}"),
                description: description.unwrap_or_default(),
                completions: Vec::new(),
                complete: None,
                shortcut: Some(key),
                shortcut_only: true,
                args: None,
                order: handler.order,
                krate,
            }
        });
        (func, result)
    }
}

/// pi-tui's modifiers, each at most once before the key.
const MODIFIERS: &[&str] = &["ctrl", "shift", "alt", "super"];

/// pi-tui's named keys (its `SpecialKey`), besides letters, digits and symbols.
const SPECIAL_KEYS: &[&str] = &[
    "escape",
    "esc",
    "enter",
    "return",
    "tab",
    "space",
    "backspace",
    "delete",
    "insert",
    "clear",
    "home",
    "end",
    "pageUp",
    "pageDown",
    "up",
    "down",
    "left",
    "right",
    "f1",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "f10",
    "f11",
    "f12",
];

/// pi-tui's one-character symbol keys (its `SymbolKey`).
const SYMBOL_KEYS: &str = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?";

/// A key as pi-tui's `KeyId` spells it (`ctrl+shift+u`, `alt+enter`, `f5`):
/// modifiers, each once, then one key; a typo is an error here, where pi
/// would ignore the shortcut silently.
pub fn key_id(lit: &LitStr) -> syn::Result<String> {
    let text = lit.value();
    let err = |why: String| {
        syn::Error::new(
            lit.span(),
            format!("invalid shortcut `{text}`: {why}; write pi's key names joined by `+`, e.g. `ctrl+shift+u`, `alt+enter`, `f5`"),
        )
    };
    // The key `+` itself ends the text: `ctrl++`.
    let (mods, base) = match text.strip_suffix("++") {
        Some(mods) => (mods, "+"),
        None => match text.rsplit_once('+') {
            Some((mods, base)) => (mods, base),
            None => ("", text.as_str()),
        },
    };
    let mut seen: Vec<&str> = Vec::new();
    for m in mods.split('+').filter(|_| !mods.is_empty()) {
        if !MODIFIERS.contains(&m) {
            return Err(err(format!(
                "`{m}` is not a modifier (ctrl, shift, alt, super)"
            )));
        }
        if seen.contains(&m) {
            return Err(err(format!("`{m}` is given twice")));
        }
        seen.push(m);
    }
    let known = SPECIAL_KEYS.contains(&base)
        || (base.chars().count() == 1
            && base
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || SYMBOL_KEYS.contains(c)));
    if !known {
        let hint = if base.chars().count() == 1 && base.chars().all(|c| c.is_ascii_uppercase()) {
            format!(" (letters are lower case: `{}`)", base.to_ascii_lowercase())
        } else {
            String::new()
        };
        return Err(err(format!("`{base}` is not a key pi knows{hint}")));
    }
    Ok(text)
}

fn int_value(kv: &crate::parse::KeyValue) -> syn::Result<i32> {
    let err = || {
        syn::Error::new(
            kv.key.span(),
            format!("`{}` takes an integer, e.g. `{} = 10`", kv.key, kv.key),
        )
    };
    match &kv.value {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        })) => i.base10_parse(),
        Some(syn::Expr::Unary(u)) if matches!(u.op, syn::UnOp::Neg(_)) => match &*u.expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<i32>().map(|v| -v),
            _ => Err(err()),
        },
        Some(other) => Err(syn::Error::new_spanned(
            other,
            format!("`{}` takes an integer, e.g. `{} = 10`", kv.key, kv.key),
        )),
        None => Err(err()),
    }
}

/// The value of `key = some::path` (a type or a function).
fn path_value(kv: &crate::parse::KeyValue) -> syn::Result<syn::Path> {
    match &kv.value {
        Some(syn::Expr::Path(p)) => Ok(p.path.clone()),
        Some(other) => Err(syn::Error::new_spanned(
            other,
            format!(
                "`{}` takes a path, e.g. `{} = my_function` (not a string)",
                kv.key, kv.key
            ),
        )),
        None => Err(syn::Error::new(
            kv.key.span(),
            format!(
                "`{}` needs a value, e.g. `{} = my_function`",
                kv.key, kv.key
            ),
        )),
    }
}

/// Borrowed types that are certainly meant as data, not extension state.
fn looks_like_data(ty: &Type) -> bool {
    match ty {
        Type::Slice(_) | Type::Array(_) | Type::Tuple(_) => true,
        _ => last_segment(ty).is_some_and(|s| {
            ["str", "String", "Path", "PathBuf", "Value", "Vec", "Option"]
                .iter()
                .any(|n| s.ident == n)
        }),
    }
}

/// Which macro an argument belongs to, for messages.
#[derive(Clone, Copy)]
pub enum Item {
    Tool,
    Hook,
    Command,
}

impl Item {
    fn name(self) -> &'static str {
        match self {
            Item::Tool => "tool",
            Item::Hook => "hook",
            Item::Command => "command",
        }
    }

    /// What to write instead of an `impl Trait` argument type.
    fn concrete_hint(self) -> &'static str {
        match self {
            Item::Tool => "the macro builds the JSON schema and decodes the model's JSON from each argument's type (e.g. `String` instead of `impl Into<String>`)",
            Item::Hook => "the event's type names the event the hook subscribes to (e.g. `event: ToolCallEvent`)",
            Item::Command => "the macro parses the text after `/name` into the argument's type (e.g. `String`, `Vec<String>`, `Parsed<u32>`)",
        }
    }
}

/// A part of an argument's type the macro cannot name.
enum Unnamed {
    /// `impl Trait`, at `impl`.
    ImplTrait(Span),
    /// `_`.
    Placeholder,
}

/// The first `impl Trait` or `_` in a type.
fn unnamed_part(ty: &Type) -> Option<Unnamed> {
    match ty {
        Type::ImplTrait(t) => Some(Unnamed::ImplTrait(t.impl_token.span)),
        Type::Infer(_) => Some(Unnamed::Placeholder),
        Type::Array(t) => unnamed_part(&t.elem),
        Type::Group(t) => unnamed_part(&t.elem),
        Type::Paren(t) => unnamed_part(&t.elem),
        Type::Ptr(t) => unnamed_part(&t.elem),
        Type::Reference(t) => unnamed_part(&t.elem),
        Type::Slice(t) => unnamed_part(&t.elem),
        Type::Tuple(t) => t.elems.iter().find_map(unnamed_part),
        Type::Path(p) => p
            .qself
            .as_ref()
            .and_then(|q| unnamed_part(&q.ty))
            .or_else(|| {
                p.path.segments.iter().find_map(|seg| match &seg.arguments {
                    PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
                        GenericArgument::Type(t) => unnamed_part(t),
                        GenericArgument::AssocType(a) => unnamed_part(&a.ty),
                        _ => None,
                    }),
                    _ => None,
                })
            }),
        _ => None,
    }
}

/// Whether an argument's type contains `_`. rustc reports that itself
/// (E0121, at the `_`), so the macro then emits the function alone: a second
/// error of its own would only repeat it.
pub fn has_placeholder_argument(func: &ItemFn) -> bool {
    func.sig.inputs.iter().any(|arg| match arg {
        FnArg::Typed(p) => matches!(unnamed_part(&p.ty), Some(Unnamed::Placeholder)),
        FnArg::Receiver(_) => false,
    })
}

/// Report an `impl Trait` argument type: the macro must name the type.
/// Returns whether the type is usable (`_` is not, but rustc reports it).
fn concrete_type(ty: &Type, item: Item, errors: &mut Errors) -> bool {
    match unnamed_part(ty) {
        None => true,
        Some(Unnamed::Placeholder) => false,
        Some(Unnamed::ImplTrait(span)) => {
            errors.push_at(
                span,
                format!(
                    "a {} argument cannot be `impl Trait`: write a concrete type, because {}",
                    item.name(),
                    item.concrete_hint()
                ),
            );
            false
        }
    }
}

/// `&mut MyExtension`: the state is shared by concurrent calls.
fn mut_state(r: &syn::TypeReference, errors: &mut Errors) {
    let name =
        last_segment(&r.elem).map_or_else(|| "MyExtension".to_string(), |s| s.ident.to_string());
    if let Some(m) = &r.mutability {
        errors.push_at(
            m.span(),
            format!("take the extension's state as `&{name}`, not `&mut {name}`: calls run at the same time and share it, so keep what changes in atomics (e.g. `AtomicU64`) or behind a lock (`std::sync::Mutex`, `pi_ext::sync::Mutex`) inside it"),
        );
    }
    // `&'static State` compiles to a borrow of a temporary (E0716, reported
    // at the attribute); say what works instead.
    if let Some(lt) = named_lifetime(r) {
        errors.push_at(
            lt.span(),
            format!("take the extension's state as `&{name}`, without a lifetime: it is lent for the call only. To use it in a spawned task, move a clone of the context in (`let ctx = ctx.clone();`) and get the state there with `ctx.state::<{name}>()` (an `Arc<{name}>`), or keep what the task needs in an `Arc` inside the state and move a clone of that"),
        );
    }
}

/// `&'static Ctx` (any named lifetime) on the context: as for the state.
fn lent_ctx(r: &syn::TypeReference, errors: &mut Errors) {
    if let Some(lt) = named_lifetime(r) {
        let name = last_segment(&r.elem).map_or_else(|| "Ctx".to_string(), |s| s.ident.to_string());
        errors.push_at(
            lt.span(),
            format!("take the context as `&{name}`, without a lifetime: it is lent for the call only. To use it in a spawned task, move a clone in (`let ctx = ctx.clone();`): a clone stays usable while the call's pi session lasts"),
        );
    }
}

/// The reference's lifetime, unless none or `'_` was written.
fn named_lifetime(r: &syn::TypeReference) -> Option<&syn::Lifetime> {
    r.lifetime.as_ref().filter(|lt| lt.ident != "_")
}

/// A validated `#[message_renderer("custom-type")]`.
pub struct MessageRendererModel {
    pub func: ItemFn,
    pub custom_type: LitStr,
    pub krate: syn::Path,
}

impl MessageRendererModel {
    pub fn build(attr: TokenStream, func: ItemFn) -> (ItemFn, syn::Result<MessageRendererModel>) {
        let mut errors = Errors::default();
        let custom_type = match syn::parse2::<LitStr>(attr.clone()) {
            Ok(lit) if !lit.value().is_empty() => Some(lit),
            Ok(lit) => {
                errors.push_at(lit.span(), "the custom message type cannot be empty");
                None
            }
            Err(_) => {
                let span = if attr.is_empty() {
                    func.sig.ident.span()
                } else {
                    attr.span()
                };
                errors.push_at(
                    span,
                    "`#[message_renderer]` takes the custom message type it renders: `#[message_renderer(\"status-update\")]`",
                );
                None
            }
        };
        if let Some(a) = &func.sig.asyncness {
            errors.push_at(
                a.span,
                "a message renderer cannot be `async`: pi paints synchronously; render from the message alone (`fn`, not `async fn`)",
            );
        }
        if let Some(g) = func.sig.generics.params.first() {
            errors.push_at(g.span(), "a message renderer cannot be generic");
        }
        let result = errors.finish().map(|()| MessageRendererModel {
            func: func.clone(),
            custom_type: custom_type.expect("checked above"),
            krate: default_krate(),
        });
        (func, result)
    }
}
