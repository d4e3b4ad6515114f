//! pi's non-chat models from Rust (pi ≥ 0.99): classifier models
//! ([`crate::models::Models::classify`]) and image models
//! ([`crate::models::Models::generate_images`]), found with
//! [`crate::models::Models::find_of_type`]. The call runs in pi's process
//! with the credentials pi resolves, as chat calls do.
//!
//! ```no_run
//! # async fn f(ctx: &pi_ext::Ctx) -> Result<(), pi_ext::models::ModelError> {
//! use pi_ext::model_kinds::{ClassifierContext, ClassifierQuestion, ModelKind};
//! let Some(jev) = ctx.models().find_of_type(ModelKind::Classifier, "typesafe", "jev-latest").await? else {
//!     return Ok(());
//! };
//! let result = ctx
//!     .models()
//!     .classify(
//!         &jev,
//!         ClassifierContext::new(serde_json::json!({"prompt": "refactor the parser"})).question(
//!             "complexity",
//!             ClassifierQuestion::choice("How demanding is `prompt`?", [("standard", "ordinary"), ("complex", "hard")]),
//!         ),
//!     )
//!     .await?;
//! let complex = result.choice_probability("complexity", "complex").unwrap_or(0.0);
//! # let _ = complex; Ok(()) }
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::data::messages::{ContentBlock, Usage};
use crate::models::{ModelError, ModelInfo, ModelRef, Models};

pub use crate::data::manifest::ModelKind;

/// One question a classifier answers (pi-ai's `ClassifierQuestion`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ClassifierQuestion {
    /// Pick one of `criteria`'s keys.
    Choice {
        /// What to judge.
        instructions: String,
        /// Each choice and what it means.
        criteria: BTreeMap<String, String>,
    },
    /// A score along `criteria`.
    Score {
        /// What to judge.
        instructions: String,
        /// The criteria, in order.
        criteria: Vec<String>,
    },
    /// True or false.
    Bool {
        /// What to judge.
        instructions: String,
        /// What true and false mean (`{"true": …, "false": …}`).
        criteria: BTreeMap<String, String>,
    },
}

impl ClassifierQuestion {
    /// A choice between `(key, meaning)` pairs.
    pub fn choice<'a>(
        instructions: impl Into<String>,
        criteria: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        ClassifierQuestion::Choice {
            instructions: instructions.into(),
            criteria: criteria
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
    }
}

/// What a classifier judges (pi-ai's `ClassifierContext`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClassifierContext {
    /// The state judged: a JSON object.
    pub state: Value,
    /// The questions, by name.
    pub questions: BTreeMap<String, ClassifierQuestion>,
    /// Images judged with `state` (only models that take images).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<crate::data::messages::ImageContent>,
}

impl ClassifierContext {
    /// `state` with no questions yet.
    pub fn new(state: Value) -> Self {
        Self {
            state,
            questions: BTreeMap::new(),
            images: Vec::new(),
        }
    }

    /// Add a question.
    pub fn question(mut self, name: impl Into<String>, question: ClassifierQuestion) -> Self {
        self.questions.insert(name.into(), question);
        self
    }
}

/// One answer (pi-ai's `ClassifierAnswer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ClassifierAnswer {
    /// The choice made, and each choice's probability.
    Choice {
        /// The chosen key.
        choice: String,
        /// Each key's probability.
        #[serde(default)]
        probabilities: BTreeMap<String, f64>,
        /// The classifier's confidence.
        #[serde(default)]
        confidence: f64,
    },
    /// A score.
    Score {
        /// The score.
        score: f64,
        /// The classifier's confidence.
        #[serde(default)]
        confidence: f64,
    },
    /// A probability of true.
    Bool {
        /// Probability of true.
        probability: f64,
    },
}

/// A classifier's answers (pi-ai's `ClassifierResult`); a failed call is
/// a result too, with `stop_reason` `"error"` or `"aborted"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ClassifierResult {
    /// The model that answered.
    #[serde(default)]
    pub model: String,
    /// Its provider.
    #[serde(default)]
    pub provider: String,
    /// The answers, by question.
    #[serde(default)]
    pub answers: BTreeMap<String, ClassifierAnswer>,
    /// `"stop"`, `"error"` or `"aborted"`.
    pub stop_reason: String,
    /// Why it failed.
    #[serde(default)]
    pub error_message: Option<String>,
    /// Tokens and cost, when the service reports them.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ClassifierResult {
    /// The probability of `choice` in the answer to `question`, if the call
    /// succeeded and that is a choice answer.
    pub fn choice_probability(&self, question: &str, choice: &str) -> Option<f64> {
        if self.stop_reason != "stop" {
            return None;
        }
        match self.answers.get(question)? {
            ClassifierAnswer::Choice { probabilities, .. } => {
                Some(probabilities.get(choice).copied().unwrap_or(0.0))
            }
            _ => None,
        }
    }
}

/// An image model's answer (pi-ai's `AssistantImages`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImagesResult {
    /// Text and image blocks.
    #[serde(default)]
    pub output: Vec<ContentBlock>,
    /// `"stop"`, `"error"` or `"aborted"`.
    pub stop_reason: String,
    /// Why it failed.
    #[serde(default)]
    pub error_message: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Models {
    /// A model of `kind` (`modelRegistry.findOfType`, pi ≥ 0.99); `None` if
    /// pi has none, or is older.
    ///
    /// # Errors
    ///
    /// As [`Models::list`].
    pub async fn find_of_type(
        &self,
        kind: ModelKind,
        provider: &str,
        id: &str,
    ) -> Result<Option<ModelInfo>, ModelError> {
        let model = ModelRef::id(provider, id);
        self.get(
            "models/find",
            json!({ "provider": provider, "id": id, "type": kind }),
            &model,
        )
        .await
    }

    /// Ask a classifier model (`modelRegistry.classify`, pi ≥ 0.99), with
    /// pi's credentials for it. A call the model failed is an `Ok` result
    /// whose `stop_reason` says so.
    ///
    /// # Errors
    ///
    /// [`ModelError::UnknownModel`] (no such classifier),
    /// [`ModelError::Failed`] (pi older than 0.99, or pi refused), and as
    /// [`Models::list`].
    pub async fn classify(
        &self,
        model: &ModelInfo,
        context: ClassifierContext,
    ) -> Result<ClassifierResult, ModelError> {
        let r = ModelRef::from(model);
        self.get(
            "models/classify",
            json!({ "model": {"provider": model.provider, "id": model.id}, "context": context }),
            &r,
        )
        .await
    }

    /// Generate images (`modelRegistry.generateImages`, pi ≥ 0.99) from
    /// `input` (text and image blocks).
    ///
    /// # Errors
    ///
    /// As [`Models::classify`].
    pub async fn generate_images(
        &self,
        model: &ModelInfo,
        input: Vec<ContentBlock>,
    ) -> Result<ImagesResult, ModelError> {
        let r = ModelRef::from(model);
        self.get(
            "models/images",
            json!({ "model": {"provider": model.provider, "id": model.id}, "context": {"input": input} }),
            &r,
        )
        .await
    }
}
