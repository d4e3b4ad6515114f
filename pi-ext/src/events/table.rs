//! The table of every event pi lets extensions hook.

use crate::events::agent::{
    AfterProviderResponseEvent, AgentBeforeSettleEvent, AgentEndEvent, AgentSettledEvent,
    AgentStartEvent, BeforeAgentStartEvent, BeforeProviderHeadersEvent, CacheWarmingDecisionEvent,
    InputEvent, MessageEndEvent, MessageStartEvent, ModelSelectEvent, ProviderStreamEvent,
    ThinkingLevelSelectEvent, TurnEndEvent, TurnStartEvent, UiPromptEndEvent, UiPromptStartEvent,
};
use crate::events::conversation::{
    BeforeProviderRequestEvent, ContextEvent, ContextWithSystemEvent,
};
use crate::events::hook::Event;
use crate::events::session::{
    McpServersChangeEvent, ProjectTrustEvent, ResourcesDiscoverEvent, SessionBeforeCompactEvent,
    SessionBeforeForkEvent, SessionBeforeSwitchEvent, SessionBeforeTreeEvent, SessionCompactEvent,
    SessionCompactFailedEvent, SessionInfoChangedEvent, SessionShutdownEvent, SessionStartEvent,
    SessionTreeEvent,
};
use crate::events::stream::MessageUpdateEvent;
use crate::events::tools::{
    ToolCallEvent, ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent,
    ToolResultEvent, UserBashEvent,
};

/// Names of every event pi lets extensions hook (`pi.on`): pi 0.73.1's,
/// and the newer ones pi-ext has types for.
pub(crate) const ALL_EVENTS: &[&str] = &[
    SessionStartEvent::NAME,
    ResourcesDiscoverEvent::NAME,
    SessionBeforeSwitchEvent::NAME,
    SessionBeforeForkEvent::NAME,
    SessionBeforeCompactEvent::NAME,
    SessionCompactEvent::NAME,
    SessionCompactFailedEvent::NAME,
    SessionInfoChangedEvent::NAME,
    SessionShutdownEvent::NAME,
    ProjectTrustEvent::NAME,
    McpServersChangeEvent::NAME,
    SessionBeforeTreeEvent::NAME,
    SessionTreeEvent::NAME,
    ContextEvent::NAME,
    ContextWithSystemEvent::NAME,
    BeforeProviderHeadersEvent::NAME,
    BeforeProviderRequestEvent::NAME,
    AfterProviderResponseEvent::NAME,
    CacheWarmingDecisionEvent::NAME,
    UiPromptStartEvent::NAME,
    UiPromptEndEvent::NAME,
    BeforeAgentStartEvent::NAME,
    AgentStartEvent::NAME,
    AgentEndEvent::NAME,
    AgentBeforeSettleEvent::NAME,
    AgentSettledEvent::NAME,
    ProviderStreamEvent::NAME,
    TurnStartEvent::NAME,
    TurnEndEvent::NAME,
    MessageStartEvent::NAME,
    MessageUpdateEvent::NAME,
    MessageEndEvent::NAME,
    ToolExecutionStartEvent::NAME,
    ToolExecutionUpdateEvent::NAME,
    ToolExecutionEndEvent::NAME,
    ModelSelectEvent::NAME,
    ThinkingLevelSelectEvent::NAME,
    ToolCallEvent::NAME,
    ToolResultEvent::NAME,
    UserBashEvent::NAME,
    InputEvent::NAME,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_is_covered_once() {
        let mut names = ALL_EVENTS.to_vec();
        names.sort();
        names.dedup();
        // pi 0.73.1's 29 and the 12 newer ones of features.js.
        assert_eq!(names.len(), 41);
    }
}
