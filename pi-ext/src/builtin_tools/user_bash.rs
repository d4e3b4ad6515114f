//! The bash operations of a `user_bash` hook's answer.

use std::any::Any;
use std::sync::Arc;

use super::erased::ErasedBash;
use super::operations::BashOperations;
use crate::context::Ctx;
use crate::events::{OpsHandle, UserBashAction};

/// The bash operations of a `user_bash` answer, kept until the bridge is done with them.
pub(crate) struct UserBashOps(pub(crate) Arc<dyn ErasedBash>);

impl UserBashAction {
    /// Run the `!command` with `operations` (the event's `ctx` keeps them
    /// for pi until the command ends).
    pub fn operations(ctx: &Ctx, operations: impl BashOperations) -> Self {
        let state: Arc<dyn Any + Send + Sync> = Arc::new(UserBashOps(Arc::new(operations)));
        UserBashAction::Operations(OpsHandle(ctx.shared().keep_handle(state)))
    }
}

/// The `user_bash` operations kept under `handle`.
pub(crate) fn user_bash_ops(state: &(dyn Any + Send + Sync)) -> Option<Arc<dyn ErasedBash>> {
    state.downcast_ref::<UserBashOps>().map(|o| o.0.clone())
}
