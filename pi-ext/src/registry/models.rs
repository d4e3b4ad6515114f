//! The models' registrations: providers and virtual models (feature
//! `models`).

use std::collections::BTreeMap;

use super::{crate_of, Manifest, Registry};
use crate::models::provider::ProviderDef;
use crate::models::virtual_model::VirtualModelDef;

/// A [`crate::provider!`] registration. Not for direct use.
#[doc(hidden)]
pub struct ProviderEntry {
    pub module: &'static str,
    pub make: fn() -> ProviderDef,
}

inventory::collect!(ProviderEntry);

/// A [`crate::virtual_model!`] registration. Not for direct use.
#[doc(hidden)]
pub struct VirtualModelEntry {
    pub make: fn() -> VirtualModelDef,
}

inventory::collect!(VirtualModelEntry);

/// What the models part registers.
#[derive(Default)]
pub(crate) struct Models {
    /// Model providers by name.
    pub(crate) providers: BTreeMap<String, ProviderDef>,
    /// The crate each provider was declared in ([`crate::provider!`] only).
    provider_crates: BTreeMap<String, &'static str>,
    /// Virtual models by `provider/id`.
    pub(crate) virtual_models: BTreeMap<String, VirtualModelDef>,
}

impl Registry {
    /// Serve a model provider (see [`mod@crate::models::provider`]). One without
    /// models, without a stream function and pi's API to answer instead,
    /// with an invalid name, or named like one already registered is left
    /// out, and the problem recorded.
    pub fn provider(mut self, provider: ProviderDef) -> Self {
        self.add_provider(provider);
        self
    }

    /// Serve a virtual model (see [`mod@crate::models::virtual_model`]). One
    /// without a route, or a second one with the same `provider/id`, is
    /// skipped with a problem.
    pub fn virtual_model(mut self, model: VirtualModelDef) -> Self {
        self.add_virtual_model(model);
        self
    }
}

impl Registry {
    /// Collect the linked providers and virtual models.
    pub(super) fn collect_models(&mut self) {
        for entry in inventory::iter::<ProviderEntry>() {
            let provider = (entry.make)();
            self.models
                .provider_crates
                .insert(provider.name.clone(), crate_of(entry.module));
            self.add_provider(provider);
        }
        for entry in inventory::iter::<VirtualModelEntry>() {
            self.add_virtual_model((entry.make)());
        }
    }

    fn add_virtual_model(&mut self, model: VirtualModelDef) {
        if let Some(problem) = model.problem() {
            self.problems.push(problem);
            return;
        }
        let key = model.full_id();
        if self.models.virtual_models.contains_key(&key) {
            self.problems.push(format!(
                "virtual model `{key}` is registered twice; keeping the first"
            ));
            return;
        }
        self.models.virtual_models.insert(key, model);
    }

    fn add_provider(&mut self, provider: ProviderDef) {
        if let Some(problem) = provider.problem() {
            self.problems.push(problem);
            return;
        }
        if self.models.providers.contains_key(&provider.name) {
            self.problems.push(format!(
                "provider `{}` is registered twice; keeping the first",
                provider.name
            ));
            return;
        }
        self.models
            .providers
            .insert(provider.name.clone(), provider);
    }

    /// The manifest's providers and virtual models.
    pub(super) fn models_manifest(&self, out: &dyn Fn(&str) -> bool, m: &mut Manifest) {
        m.providers = self
            .models
            .providers
            .values()
            .filter(|p| {
                !self
                    .models
                    .provider_crates
                    .get(&p.name)
                    .is_some_and(|m| out(m))
            })
            .map(ProviderDef::manifest)
            .collect();
        m.virtual_models = self
            .models
            .virtual_models
            .values()
            .map(|v| v.manifest.clone())
            .collect();
    }
}
