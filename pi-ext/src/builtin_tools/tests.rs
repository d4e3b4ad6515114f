//! The built-in tools' definitions with Rust operations, and image sniffing.

use std::io;
use std::path::Path;

use super::*;
use crate::context::Ctx;

#[test]
fn images_are_told_by_their_first_bytes() {
    assert_eq!(
        sniff_image_mime_type(b"\x89PNG\r\n\x1a\nrest"),
        Some("image/png")
    );
    assert_eq!(sniff_image_mime_type(b"GIF89a.."), Some("image/gif"));
    assert_eq!(
        sniff_image_mime_type(b"RIFF\0\0\0\0WEBPVP8 "),
        Some("image/webp")
    );
    assert_eq!(sniff_image_mime_type(b"plain text"), None);
}

/// Files in memory, for the write and edit tools.
struct Memory;

impl WriteOperations for Memory {
    async fn write_file(&self, _: &Ctx, _: &Path, _: &str) -> io::Result<()> {
        Ok(())
    }
    async fn mkdir(&self, _: &Ctx, _: &Path) -> io::Result<()> {
        Ok(())
    }
}

impl EditOperations for Memory {
    async fn read_file(&self, _: &Ctx, _: &Path) -> io::Result<Vec<u8>> {
        Ok(Vec::new())
    }
    async fn write_file(&self, _: &Ctx, _: &Path, _: &str) -> io::Result<()> {
        Ok(())
    }
    async fn access(&self, _: &Ctx, _: &Path) -> io::Result<()> {
        Err(io::Error::other("SSH failed (1): "))
    }
}

#[test]
fn write_and_edit_are_pis_tools_with_rust_operations() {
    let write = BuiltinTool::write(Memory).label("write (remote)");
    let edit = BuiltinTool::edit(Memory);
    assert_eq!((write.name(), edit.name()), ("write", "edit"));
    let m = write.manifest();
    assert_eq!(m.tool, "write");
    assert_eq!(m.label.as_deref(), Some("write (remote)"));
    assert!(m.operations && !m.spawn_hook);
    assert!(edit.manifest().operations);
    assert_eq!(write.problem(), None);
    assert_eq!(edit.problem(), None);
    assert!(write.write.is_some() && edit.edit.is_some());
}

#[cfg(feature = "tui")]
#[test]
fn rust_rows_keep_the_definitions_shell_unless_one_is_chosen() {
    use super::Shell;
    struct Plain;
    impl crate::tui::ToolRender for Plain {
        type Args = serde_json::Value;
        type Details = serde_json::Value;
    }
    let shell = |tool: BuiltinTool| tool.manifest().render.and_then(|r| r.shell);
    let edit = || BuiltinTool::named("edit").unwrap().render(Plain);
    assert_eq!(shell(edit()), None);
    assert_eq!(shell(edit().shell(Shell::Pi)).as_deref(), Some("default"));
    assert_eq!(shell(edit().shell(Shell::Own)).as_deref(), Some("self"));
    // Without Rust rows pi's own rows keep their shell: nothing is sent.
    assert_eq!(shell(BuiltinTool::edit(Memory).shell(Shell::Pi)), None);
}
