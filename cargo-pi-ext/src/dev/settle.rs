//! From the watcher's events to builds: which events can be changes, and
//! the folding of a burst (an editor's save, `git checkout`, the edits
//! made while a build ran) into one batch of changed files.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecursiveMode, Watcher};

use super::sources::Sources;

/// Whether an event of this kind can change a file's content or presence.
/// Not a read (open, close after reading: the build itself reads every
/// source), not a change of metadata only (touch, chmod). Kinds a
/// platform leaves unspecified count; the fingerprints then decide.
pub(crate) fn may_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_)) | EventKind::Other => {
            false
        }
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
    }
}

/// Turns the watcher's events into batches of changed source files.
#[derive(Debug)]
pub(crate) struct Settle {
    /// The sources and their fingerprints as the last build saw them.
    pub(crate) sources: Sources,
    /// How long the relevant events must pause for a batch to end.
    pub(crate) quiet: Duration,
    /// The longest a batch gathers, so that files which never stop
    /// changing still get built.
    pub(crate) longest: Duration,
}

/// The files a batch's events touched, each with its fingerprint from
/// before the batch (`None`: it was not there).
#[derive(Debug, Default)]
pub(crate) struct Batch(BTreeMap<PathBuf, Option<u64>>);

impl Settle {
    /// Wait for the next batch: the first event that changes a source
    /// file, then every event until the relevant ones pause for `quiet`.
    /// Whatever arrived during the last build is already queued, so it
    /// all folds into this one batch. Returns the files that differ at its
    /// end from before it, sorted; a batch that leaves every file as it
    /// was (reads, touches, the same content written again, the build's
    /// own writes, an editor's temporary file come and gone) is passed
    /// over without a word. `None` once the watcher is gone.
    pub(crate) fn next_batch(
        &mut self,
        events: &Receiver<notify::Result<Event>>,
        watcher: &mut dyn Watcher,
        warn: &mut dyn FnMut(String),
    ) -> Option<Vec<PathBuf>> {
        loop {
            let mut batch = Batch::default();
            while batch.0.is_empty() {
                let event = events.recv().ok()?;
                self.take(event, &mut batch, watcher, warn);
            }
            let deadline = Instant::now() + self.longest;
            let mut last = Instant::now();
            loop {
                let until = (last + self.quiet).min(deadline);
                let Some(wait) = until.checked_duration_since(Instant::now()) else {
                    break;
                };
                match events.recv_timeout(wait) {
                    Ok(event) => {
                        if self.take(event, &mut batch, watcher, warn) {
                            last = Instant::now();
                        }
                    }
                    Err(_) => break, // quiet (or the watcher is gone: the next call says so)
                }
            }
            let changed = self.finish(batch);
            if !changed.is_empty() {
                return Some(changed);
            }
        }
    }

    /// Add the files `event` changed to `batch`; whether it concerned a
    /// source at all.
    ///
    /// A directory made (or moved) directly in the workspace root gets a
    /// recursive watch from `watcher` here, as the root's watch does not
    /// recurse; its files are then fingerprinted, so none written before
    /// the watch began is missed.
    pub(crate) fn take(
        &mut self,
        event: notify::Result<Event>,
        batch: &mut Batch,
        watcher: &mut dyn Watcher,
        warn: &mut dyn FnMut(String),
    ) -> bool {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                warn(format!("watching failed: {e}; still watching"));
                return false;
            }
        };
        let paths = if event.need_rescan() {
            // Events were lost: every directory may be new, any file changed.
            let dirs = self.sources.top_dirs().unwrap_or_default();
            dirs.into_iter()
                .chain([self.sources.root().to_path_buf()])
                .collect()
        } else if may_change(&event.kind) {
            event.paths
        } else {
            return false;
        };
        let mut relevant = false;
        for path in paths {
            if !self.sources.is_source(&path) {
                continue;
            }
            relevant = true;
            if self.sources.is_top_dir(&path) {
                // Not watched (any more): made, moved here, or re-created.
                let _ = watcher.unwatch(&path);
                if let Err(e) = watcher.watch(&path, RecursiveMode::Recursive) {
                    warn(format!("could not watch {}: {e}", path.display()));
                }
            }
            for (file, before) in self.sources.refresh(&path) {
                batch.0.entry(file).or_insert(before);
            }
        }
        relevant
    }

    /// The files of `batch` that differ now from before it, sorted.
    pub(crate) fn finish(&self, batch: Batch) -> Vec<PathBuf> {
        batch
            .0
            .into_iter()
            .filter(|(file, before)| self.sources.get(file) != *before)
            .map(|(file, _)| file)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::sources::tests::Scratch;
    use super::*;
    use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind, RenameMode};
    use notify::NullWatcher;
    use std::path::Path;
    use std::sync::mpsc;

    fn settle(w: &Scratch) -> Settle {
        let mut sources = Sources::new(w.0.clone(), w.0.join("target"));
        sources.refresh(&w.0);
        Settle {
            sources,
            quiet: Duration::from_millis(200),
            longest: Duration::from_secs(60),
        }
    }

    fn event(kind: EventKind, path: &Path) -> notify::Result<Event> {
        Ok(Event::new(kind).add_path(path.to_path_buf()))
    }

    /// Every batch of `events` (all queued, as during a build; then the
    /// watcher goes).
    fn batches(s: &mut Settle, events: Vec<notify::Result<Event>>) -> Vec<Vec<PathBuf>> {
        let (tx, rx) = mpsc::channel();
        for e in events {
            tx.send(e).unwrap();
        }
        drop(tx);
        let mut warnings = Vec::new();
        let mut all = Vec::new();
        while let Some(batch) = s.next_batch(&rx, &mut NullWatcher, &mut |w| warnings.push(w)) {
            all.push(batch);
        }
        assert_eq!(warnings, Vec::<String>::new());
        all
    }

    const MODIFIED: EventKind = EventKind::Modify(ModifyKind::Data(DataChange::Any));

    #[test]
    fn reads_and_touches_are_no_change() {
        for kind in [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Access(AccessKind::Read),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
            EventKind::Other,
        ] {
            assert!(!may_change(&kind), "{kind:?}");
        }
        for kind in [
            EventKind::Create(CreateKind::File),
            MODIFIED,
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            EventKind::Remove(RemoveKind::File),
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Any,
        ] {
            assert!(may_change(&kind), "{kind:?}");
        }

        // Even of a file whose content did change: a read is not a write.
        let w = Scratch::new("settle-reads");
        w.write("src/lib.rs", "one");
        let mut s = settle(&w);
        let lib = w.0.join("src/lib.rs");
        w.write("src/lib.rs", "two");
        let reads = [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
        ];
        let events = (0..30).map(|i| event(reads[i % 3], &lib)).collect();
        assert_eq!(batches(&mut s, events), Vec::<Vec<PathBuf>>::new());
    }

    #[test]
    fn the_builds_own_writes_and_unchanged_files_are_no_change() {
        let w = Scratch::new("settle-own");
        w.write("src/lib.rs", "one");
        let mut s = settle(&w);
        let events = vec![
            event(MODIFIED, &w.0.join("target/debug/my-ext")),
            event(EventKind::Create(CreateKind::File), &w.0.join("Cargo.lock")),
            event(EventKind::Create(CreateKind::Folder), &w.0.join("target")),
            // Written again, the same.
            event(MODIFIED, &w.0.join("src/lib.rs")),
        ];
        w.write("target/debug/my-ext", "binary");
        w.write("Cargo.lock", "lock");
        w.write("src/lib.rs", "one");
        assert_eq!(batches(&mut s, events), Vec::<Vec<PathBuf>>::new());
    }

    #[test]
    fn events_queued_during_a_build_fold_into_one_batch() {
        let w = Scratch::new("settle-fold");
        w.write("src/lib.rs", "0");
        w.write("src/a.rs", "0");
        let mut s = settle(&w);
        let (lib, a) = (w.0.join("src/lib.rs"), w.0.join("src/a.rs"));
        let mut events = Vec::new();
        for i in 1..=40 {
            w.write("src/lib.rs", &i.to_string());
            events.push(event(MODIFIED, &lib));
            events.push(event(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                &lib,
            ));
        }
        w.write("src/a.rs", "1");
        events.push(event(MODIFIED, &a));
        assert_eq!(batches(&mut s, events), vec![vec![a, lib]]);
    }

    #[test]
    fn an_editors_temporary_file_and_an_edit_undone_are_no_change() {
        let w = Scratch::new("settle-net");
        w.write("src/lib.rs", "one");
        let mut s = settle(&w);
        let (lib, tmp) = (w.0.join("src/lib.rs"), w.0.join("src/sedAbc123"));
        let take = |s: &mut Settle, batch: &mut Batch, kind, path: &Path| {
            s.take(event(kind, path), batch, &mut NullWatcher, &mut |e| {
                panic!("{e}")
            })
        };
        let rename = |mode| EventKind::Modify(ModifyKind::Name(mode));

        // `sed -i`: a new file beside, renamed onto the old one. Each event
        // is taken while the files are as they were when it came.
        let mut batch = Batch::default();
        w.write("src/sedAbc123", "two");
        take(
            &mut s,
            &mut batch,
            EventKind::Create(CreateKind::File),
            &tmp,
        );
        std::fs::rename(&tmp, &lib).unwrap();
        take(&mut s, &mut batch, rename(RenameMode::From), &tmp);
        take(&mut s, &mut batch, rename(RenameMode::To), &lib);
        assert_eq!(s.finish(batch), vec![lib.clone()]);

        // A file come and gone, an edit undone: nothing to build.
        let mut batch = Batch::default();
        w.write("src/scratch.rs", "x");
        take(
            &mut s,
            &mut batch,
            EventKind::Create(CreateKind::File),
            &w.0.join("src/scratch.rs"),
        );
        std::fs::remove_file(w.0.join("src/scratch.rs")).unwrap();
        take(
            &mut s,
            &mut batch,
            EventKind::Remove(RemoveKind::File),
            &w.0.join("src/scratch.rs"),
        );
        w.write("src/lib.rs", "three");
        take(&mut s, &mut batch, MODIFIED, &lib);
        w.write("src/lib.rs", "two");
        take(&mut s, &mut batch, MODIFIED, &lib);
        assert_eq!(s.finish(batch), Vec::<PathBuf>::new());
    }

    #[test]
    fn a_top_directory_deleted_and_re_created_is_still_watched() {
        let w = Scratch::new("settle-rewatch");
        w.write("src/lib.rs", "one");
        let mut s = settle(&w);
        let (tx, rx) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(tx).unwrap();
        watcher.watch(&w.0, RecursiveMode::NonRecursive).unwrap();
        for dir in s.sources.top_dirs().unwrap() {
            watcher.watch(&dir, RecursiveMode::Recursive).unwrap();
        }
        // The loop in a thread of its own, its batches sent here; waited for
        // with a deadline, so the test fails (rather than hangs) without one.
        let (batch_tx, batches) = mpsc::channel();
        std::thread::spawn(move || {
            while let Some(batch) = s.next_batch(&rx, &mut watcher, &mut |e| panic!("{e}")) {
                if batch_tx.send(batch).is_err() {
                    return;
                }
            }
        });
        let wait_for = |path: PathBuf, what: &str| {
            let mut seen = Vec::new();
            while !seen.contains(&path) {
                let batch = batches.recv_timeout(Duration::from_secs(60));
                seen.extend(batch.unwrap_or_else(|_| panic!("no change seen after {what}")));
            }
        };

        // Deleted and re-created, then a file beside it as a marker: the
        // events come in order, so once the marker's batch is out, the new
        // `src` has been seen (and watched).
        std::fs::remove_dir_all(w.0.join("src")).unwrap();
        std::fs::create_dir(w.0.join("src")).unwrap();
        w.write("marker", "1");
        wait_for(w.0.join("marker"), "the marker");
        // A file written in it later is a change.
        w.write("src/lib.rs", "two");
        wait_for(
            w.0.join("src/lib.rs"),
            "an edit in the re-created directory",
        );
    }
}
