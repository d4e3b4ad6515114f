//! An extension whose `on_load` fails: the failure is reported with its
//! message, the extension's tools are left out, and serving goes on.

use pi_ext::lifecycle::LoadCtx;
use pi_ext::prelude::*;
use pi_ext::testing::TestHost;
use serde_json::json;

/// Needs a database that is not there.
#[extension(name = "needs-db", on_load = connect)]
struct NeedsDb;

async fn connect(_ctx: LoadCtx) -> Result<NeedsDb, Error> {
    Err(Error::new("cannot reach the database at db.invalid:5432"))
}

/// Query the database.
#[tool]
async fn query(db: &NeedsDb, sql: String) -> String {
    let _ = db;
    sql
}

#[test]
fn a_failing_on_load_is_reported_and_its_tools_are_left_out() {
    let host = TestHost::new();
    let manifest = host.manifest();
    assert!(
        manifest
            .problems
            .iter()
            .any(|p| p.contains("`needs-db` failed to load: cannot reach the database")),
        "{:?}",
        manifest.problems
    );
    assert_eq!(manifest.extensions.len(), 1);
    assert!(!manifest.extensions[0].loaded);
    assert!(manifest.tools.is_empty(), "{:?}", manifest.tools);
    // A call that reaches the tool anyway gets an error, not a crash.
    let out = host.call("query", json!({"sql": "select 1"}));
    assert!(out.is_error);
    assert!(out.text().contains("is not loaded"), "{}", out.text());
}
