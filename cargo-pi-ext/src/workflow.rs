//! `package --ci-workflow`: a GitHub Actions workflow that builds the
//! extension on a native runner per platform and publishes the npm
//! packages from the binaries (`cargo pi-ext package --no-build`).

/// A platform the workflow builds, and the runner that builds it natively.
pub(crate) struct Target {
    /// Rust's target triple (also accepted by `--binary`).
    pub(crate) target: &'static str,
    /// The GitHub-hosted runner.
    pub(crate) runner: &'static str,
    /// The executable's suffix there.
    pub(crate) exe: &'static str,
}

/// What the workflow builds.
pub(crate) const TARGETS: &[Target] = &[
    Target {
        target: "x86_64-unknown-linux-gnu",
        runner: "ubuntu-latest",
        exe: "",
    },
    Target {
        target: "aarch64-unknown-linux-gnu",
        runner: "ubuntu-24.04-arm",
        exe: "",
    },
    Target {
        target: "x86_64-apple-darwin",
        runner: "macos-13",
        exe: "",
    },
    Target {
        target: "aarch64-apple-darwin",
        runner: "macos-14",
        exe: "",
    },
    Target {
        target: "x86_64-pc-windows-msvc",
        runner: "windows-latest",
        exe: ".exe",
    },
];

/// What the workflow is about.
pub(crate) struct Workflow<'a> {
    /// The cargo package.
    pub(crate) package: &'a str,
    /// Its binary target.
    pub(crate) bin: &'a str,
    /// The main npm package's name.
    pub(crate) npm_name: &'a str,
    /// The package's Cargo.toml, relative to the repository root.
    pub(crate) manifest: &'a str,
    /// The cargo-pi-ext version to install in CI (this one).
    pub(crate) tool_version: &'a str,
}

/// The workflow's YAML.
pub(crate) fn workflow(w: &Workflow<'_>) -> String {
    let Workflow {
        package,
        bin,
        npm_name,
        manifest,
        tool_version,
    } = w;
    let base = npm_name.rsplit('/').next().unwrap_or(npm_name);
    let matrix: String = TARGETS
        .iter()
        .map(|t| {
            format!(
                "          - {{ target: {}, runner: {}, exe: \"{}\" }}\n",
                t.target, t.runner, t.exe
            )
        })
        .collect();
    let binaries = TARGETS
        .iter()
        .map(|t| {
            format!(
                "            --binary {target}=binaries/{target}/{bin}{exe}",
                target = t.target,
                exe = t.exe
            )
        })
        .collect::<Vec<_>>()
        .join(" \\\n");
    format!(
        r#"# Written by `cargo pi-ext package --ci-workflow`: builds {bin} on a native
# runner per platform, then writes the npm packages (a main package and one per
# platform) and, on a tag v*, publishes them: `pi install npm:{npm_name}` then
# works without Rust. Needs the repository secret NPM_TOKEN (an npm automation token).
name: pi-ext npm packages

on:
  push:
    tags: ["v*"]
  workflow_dispatch:

jobs:
  build:
    strategy:
      fail-fast: false
      matrix:
        include:
{matrix}    runs-on: ${{{{ matrix.runner }}}}
    steps:
      - uses: actions/checkout@v4
      - run: rustup target add ${{{{ matrix.target }}}}
      - run: cargo build --release --locked --manifest-path {manifest} --package {package} --bin {bin} --target ${{{{ matrix.target }}}}
      - uses: actions/upload-artifact@v4
        with:
          name: ${{{{ matrix.target }}}}
          path: target/${{{{ matrix.target }}}}/release/{bin}${{{{ matrix.exe }}}}
          if-no-files-found: error

  package:
    needs: build
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/download-artifact@v4
        with:
          path: binaries
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          registry-url: https://registry.npmjs.org
      # Artifacts lose the executable bit; the Linux binary writes the packages.
      - run: chmod +x binaries/*/{bin}
      - run: cargo install cargo-pi-ext --locked --version {tool_version}
      - run: |
          cargo pi-ext package --no-build --manifest-path {manifest} --package {package} --bin {bin} \
            --npm-name {npm_name} --out npm \
{binaries}
      - uses: actions/upload-artifact@v4
        with:
          name: npm-packages
          path: npm
      - name: Publish (the platform packages first, then the main one)
        if: startsWith(github.ref, 'refs/tags/v')
        env:
          NODE_AUTH_TOKEN: ${{{{ secrets.NPM_TOKEN }}}}
        run: |
          for dir in npm/{base}-*/; do npm publish --access public "$dir"; done
          npm publish --access public npm/{base}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_is_built_and_packaged() {
        let text = workflow(&Workflow {
            package: "my-ext",
            bin: "my-ext",
            npm_name: "@me/my-ext",
            manifest: "Cargo.toml",
            tool_version: "0.1.0",
        });
        for t in TARGETS {
            assert!(
                text.contains(&format!("target: {}, runner: {}", t.target, t.runner)),
                "{}",
                t.target
            );
            assert!(
                text.contains(&format!(
                    "--binary {0}=binaries/{0}/my-ext{1}",
                    t.target, t.exe
                )),
                "{text}"
            );
        }
        assert!(text.contains("runs-on: ${{ matrix.runner }}"), "{text}");
        assert!(text.contains("for dir in npm/my-ext-*/;"), "{text}");
        assert!(text.contains("npm publish --access public npm/my-ext\n"));
        assert!(!text.contains('\t'), "YAML takes no tabs");
    }
}
