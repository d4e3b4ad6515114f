//! Keys of the macros that need an optional part: the generated code goes
//! through `__with_<feature>!`, which is the code itself with the feature and
//! one error at the user's key without it (the key's name and the feature to
//! enable), instead of the errors of every path the code names.

/// `__with_tui!("what", code)`: `code` with the `tui` feature.
#[cfg(feature = "tui")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_tui {
    (@quiet $($code:tt)*) => { $($code)* };
    (@item $what:literal, $($code:tt)*) => { $($code)* };
    ($what:literal, $($code:tt)*) => { $($code)* };
}

/// `__with_tui!("what", code)`: one error naming the feature without it.
#[cfg(not(feature = "tui"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_tui {
    (@quiet $($code:tt)*) => {};
    (@item $what:literal, $($code:tt)*) => {
        ::core::compile_error!(::core::concat!(
            $what,
            " needs pi-ext's Cargo feature `tui` (pi's terminal UI): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"tui\"] }`, or keep the default features"
        ));
    };
    ($what:literal, $($code:tt)*) => {
        ::core::compile_error!(::core::concat!(
            $what,
            " needs pi-ext's Cargo feature `tui` (pi's terminal UI): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"tui\"] }`, or keep the default features"
        ))
    };
}

/// `__with_settings!("what", code)`: `code` with the `settings` feature.
#[cfg(feature = "settings")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_settings {
    (@quiet $($code:tt)*) => { $($code)* };
    ($what:literal, $($code:tt)*) => { $($code)* };
}

/// `__with_settings!("what", code)`: one error naming the feature without it.
#[cfg(not(feature = "settings"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_settings {
    (@quiet $($code:tt)*) => {};
    ($what:literal, $($code:tt)*) => {
        ::core::compile_error!(::core::concat!(
            $what,
            " needs pi-ext's Cargo feature `settings`: enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"settings\"] }`, or keep the default features"
        ))
    };
}

// The registration macros of an optional part, without it: one error at
// the call, naming the feature.

/// `provider!` without the `models` feature.
#[cfg(not(feature = "models"))]
#[doc(hidden)]
#[macro_export]
macro_rules! provider {
    ($($any:tt)*) => {
        ::core::compile_error!(
            "`provider!` needs pi-ext's Cargo feature `models` (pi's models and providers): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"models\"] }`, or keep the default features"
        );
    };
}

/// `virtual_model!` without the `models` feature.
#[cfg(not(feature = "models"))]
#[doc(hidden)]
#[macro_export]
macro_rules! virtual_model {
    ($($any:tt)*) => {
        ::core::compile_error!(
            "`virtual_model!` needs pi-ext's Cargo feature `models` (pi's models and providers): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"models\"] }`, or keep the default features"
        );
    };
}

/// `builtin_tool!` without the `builtin-tools` feature.
#[cfg(not(feature = "builtin-tools"))]
#[doc(hidden)]
#[macro_export]
macro_rules! builtin_tool {
    ($($any:tt)*) => {
        ::core::compile_error!(
            "`builtin_tool!` needs pi-ext's Cargo feature `builtin-tools` (pi's built-in tools with Rust operations): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"builtin-tools\"] }`, or keep the default features"
        );
    };
}

/// `entry_renderer!` without the `tui` feature.
#[cfg(not(feature = "tui"))]
#[doc(hidden)]
#[macro_export]
macro_rules! entry_renderer {
    ($($any:tt)*) => {
        ::core::compile_error!(
            "`entry_renderer!` needs pi-ext's Cargo feature `tui` (pi's terminal UI): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"tui\"] }`, or keep the default features"
        );
    };
}

/// `tool_renderer!` without the `tui` feature.
#[cfg(not(feature = "tui"))]
#[doc(hidden)]
#[macro_export]
macro_rules! tool_renderer {
    ($($any:tt)*) => {
        ::core::compile_error!(
            "`tool_renderer!` needs pi-ext's Cargo feature `tui` (pi's terminal UI): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"tui\"] }`, or keep the default features"
        );
    };
}

/// `markdown_transformer!` without the `tui` feature.
#[cfg(not(feature = "tui"))]
#[doc(hidden)]
#[macro_export]
macro_rules! markdown_transformer {
    ($($any:tt)*) => {
        ::core::compile_error!(
            "`markdown_transformer!` needs pi-ext's Cargo feature `tui` (pi's terminal UI): enable it, e.g. \
             `pi-ext = { version = \"0.1\", features = [\"tui\"] }`, or keep the default features"
        );
    };
}
