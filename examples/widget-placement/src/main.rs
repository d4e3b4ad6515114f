//! A port of pi's `examples/extensions/widget-placement.ts`: when a session
//! starts with a UI, one widget above pi's editor (the default place) and
//! one below it.
use pi_ext::events::SessionStartEvent;
use pi_ext::prelude::*;

/// Show both widgets.
#[hook]
async fn session_start(ctx: &Ctx, _event: SessionStartEvent) {
    if !ctx.has_ui() {
        return;
    }
    let ui = ctx.ui();
    ui.set_widget(
        "widget-above",
        Some(["Above editor widget"]),
        Placement::Default,
    );
    ui.set_widget(
        "widget-below",
        Some(["Below editor widget"]),
        Placement::BelowEditor,
    );
}

#[extension(name = "widget-placement")]
struct WidgetPlacement;

pi_ext::main!();
