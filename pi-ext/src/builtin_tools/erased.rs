//! Object-safe forms of the operation traits, boxed once.

use std::future::Future;
use std::io;
use std::path::Path;
use std::pin::Pin;

use super::operations::{
    BashError, BashOperations, BashRun, EditOperations, FindOperations, FindOptions, LsOperations,
    OutputSink, ReadOperations, WriteOperations,
};
use crate::context::Ctx;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

// Object-safe forms of the traits, boxed once here.
pub(crate) trait ErasedBash: Send + Sync {
    fn exec<'a>(
        &'a self,
        ctx: &'a Ctx,
        run: BashRun,
        out: OutputSink,
    ) -> BoxFuture<'a, Result<Option<i32>, BashError>>;
}

impl<T: BashOperations> ErasedBash for T {
    fn exec<'a>(
        &'a self,
        ctx: &'a Ctx,
        run: BashRun,
        out: OutputSink,
    ) -> BoxFuture<'a, Result<Option<i32>, BashError>> {
        Box::pin(BashOperations::exec(self, ctx, run, out))
    }
}

pub(crate) trait ErasedRead: Send + Sync {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>>;
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>>;
    fn detect<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, Option<String>>;
}

impl<T: ReadOperations> ErasedRead for T {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>> {
        Box::pin(ReadOperations::read_file(self, ctx, path))
    }
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(ReadOperations::access(self, ctx, path))
    }
    fn detect<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, Option<String>> {
        Box::pin(ReadOperations::detect_image_mime_type(self, ctx, path))
    }
}

pub(crate) trait ErasedWrite: Send + Sync {
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>>;
    fn mkdir<'a>(&'a self, ctx: &'a Ctx, dir: &'a Path) -> BoxFuture<'a, io::Result<()>>;
}

impl<T: WriteOperations> ErasedWrite for T {
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(WriteOperations::write_file(self, ctx, path, content))
    }
    fn mkdir<'a>(&'a self, ctx: &'a Ctx, dir: &'a Path) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(WriteOperations::mkdir(self, ctx, dir))
    }
}

pub(crate) trait ErasedEdit: Send + Sync {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>>;
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>>;
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>>;
}

impl<T: EditOperations> ErasedEdit for T {
    fn read_file<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<Vec<u8>>> {
        Box::pin(EditOperations::read_file(self, ctx, path))
    }
    fn write_file<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(EditOperations::write_file(self, ctx, path, content))
    }
    fn access<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<()>> {
        Box::pin(EditOperations::access(self, ctx, path))
    }
}

pub(crate) trait ErasedLs: Send + Sync {
    fn exists<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, bool>;
    fn is_directory<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<bool>>;
    fn read_dir<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
    ) -> BoxFuture<'a, io::Result<Vec<String>>>;
}

impl<T: LsOperations> ErasedLs for T {
    fn exists<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, bool> {
        Box::pin(LsOperations::exists(self, ctx, path))
    }
    fn is_directory<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, io::Result<bool>> {
        Box::pin(LsOperations::is_directory(self, ctx, path))
    }
    fn read_dir<'a>(
        &'a self,
        ctx: &'a Ctx,
        path: &'a Path,
    ) -> BoxFuture<'a, io::Result<Vec<String>>> {
        Box::pin(LsOperations::read_dir(self, ctx, path))
    }
}

pub(crate) trait ErasedFind: Send + Sync {
    fn exists<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, bool>;
    fn glob<'a>(
        &'a self,
        ctx: &'a Ctx,
        pattern: &'a str,
        cwd: &'a Path,
        options: FindOptions,
    ) -> BoxFuture<'a, io::Result<Vec<String>>>;
}

impl<T: FindOperations> ErasedFind for T {
    fn exists<'a>(&'a self, ctx: &'a Ctx, path: &'a Path) -> BoxFuture<'a, bool> {
        Box::pin(FindOperations::exists(self, ctx, path))
    }
    fn glob<'a>(
        &'a self,
        ctx: &'a Ctx,
        pattern: &'a str,
        cwd: &'a Path,
        options: FindOptions,
    ) -> BoxFuture<'a, io::Result<Vec<String>>> {
        Box::pin(FindOperations::glob(self, ctx, pattern, cwd, options))
    }
}
