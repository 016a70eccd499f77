//! What a live hook call reads from the disk, by mechanism: each script runner and
//! interpreter form, Makefiles and package scripts, git's stored configuration and hooks,
//! parents, archives, stash, checkout and clean, symbolic and hard links; each with a
//! benign twin that stays as it was.

use std::path::{Path, PathBuf};

use super::{effects_of_line, Where};
use crate::effects::programs::testing::labels;

/// A scratch home with a project in it (with `.claude/settings.json`), read with the disk.
struct Scratch {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let project = home.join("proj");
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{\"hooks\":{}}").unwrap();
        Scratch {
            _dir: dir,
            home,
            project,
        }
    }

    fn at(&self, disk: bool) -> Where {
        Where {
            cwd: self.project.to_str().unwrap().into(),
            project: self.project.to_str().unwrap().into(),
            home: self.home.to_str().unwrap().into(),
            gate: Vec::new(),
            disk,
        }
    }

    /// Write `text` at `rel` (under the project), creating directories.
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.project.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn effects(&self, line: &str) -> Vec<String> {
        let mut out = Vec::new();
        super::begin_reads();
        effects_of_line(line, &self.at(true), &mut out);
        let _ = super::end_reads();
        super::disk::read_disk(&self.at(true), &mut out);
        labels(&out)
    }

    fn without_disk(&self, line: &str) -> Vec<String> {
        let mut out = Vec::new();
        effects_of_line(line, &self.at(false), &mut out);
        labels(&out)
    }

    fn git(&self, args: &[&str]) {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }
}

fn has(effects: &[String], e: &str) -> bool {
    effects.iter().any(|x| x == e)
}

fn git_available() -> bool {
    std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_script_a_shell_runs_is_read_as_shell_lines() {
    let s = Scratch::new();
    s.write("run.sh", "#!/bin/sh\necho building\nrm -rf ~\n");
    s.write("ok.sh", "#!/bin/sh\necho hello\nls -la\n");
    s.write("env.sh", "export GATE_ROLE=director\n");
    s.write("bin/deploy", "#!/usr/bin/env bash\nrm -rf .claude\n");
    s.write("args.sh", "rm -rf \"$1\"\n");
    s.write("sub/in.sh", "cd \"$(dirname \"$0\")\"\nrm -rf build\n");
    for line in [
        "bash run.sh",
        "sh run.sh",
        "sh -x -e ./run.sh",
        "bash -euo pipefail run.sh",
        "./run.sh",
        "source run.sh",
        ". ./run.sh",
        "sh < run.sh",
        "zsh -- run.sh",
    ] {
        let e = s.effects(line);
        assert!(has(&e, "delete@home"), "{line}: {e:?}");
        // A replay or a test does not read the disk: the same line is only a run.
        assert!(!has(&s.without_disk(line), "delete@home"), "{line}");
    }
    assert!(has(&s.effects("bin/deploy"), "delete@gate"));
    // With operands the generic reading takes for paths, and run by another program.
    for line in [
        "./run.sh .",
        "./run.sh ./dist",
        "bin/deploy ../x.tar",
        "find . -exec ./run.sh {} \\;",
        "find . -name '*.o' -exec bin/deploy {} +",
        "timeout 60 ./run.sh .",
    ] {
        let e = s.effects(line);
        assert!(
            has(&e, "delete@home") || has(&e, "delete@gate"),
            "{line}: {e:?}"
        );
    }
    assert!(has(&s.effects(". env.sh"), "write@gate"));
    assert!(has(&s.effects("bash args.sh ~"), "delete@home"));
    assert!(has(&s.effects("bash args.sh build"), "delete@outputs"));
    // Its own directory, however the script spells it.
    let e = s.effects("bash sub/in.sh");
    assert!(has(&e, "delete@outputs"), "{e:?}");
    // The benign twin: a script that only echoes and lists stays as it was.
    for line in ["bash ok.sh", "./ok.sh", "sh ok.sh", ". ./ok.sh"] {
        let e = s.effects(line);
        assert!(
            e.iter().all(|x| x.starts_with("read@") || x == "exec@none"),
            "{line}: {e:?}"
        );
    }
}

#[test]
fn interpreter_scripts_are_read_by_their_analysers() {
    let s = Scratch::new();
    s.write("x.py", "import shutil, os\nshutil.rmtree('/home')\n");
    s.write("ok.py", "print('hello')\n");
    s.write(
        "x.js",
        "require('fs').rmSync('.claude', {recursive: true})\n",
    );
    s.write("x.pl", "system('rm -rf ~');\n");
    s.write("x.rb", "FileUtils.rm_rf('.claude')\n");
    s.write("tool.py", "import os\nos.system('rm -rf ~')\n");
    s.write(
        "prog",
        "#!/usr/bin/env python3\nimport os\nos.system('rm -rf ~')\n",
    );
    assert!(has(&s.effects("python3 x.py"), "delete@home"));
    assert!(has(&s.effects("python3 -u x.py arg"), "delete@home"));
    assert!(has(&s.effects("node x.js"), "delete@gate"));
    assert!(has(&s.effects("perl x.pl"), "delete@home"));
    assert!(has(&s.effects("ruby x.rb"), "delete@gate"));
    assert!(has(&s.effects("./prog"), "delete@home"));
    // `python3 -m tool` with `tool.py` beside it runs that file.
    assert!(has(&s.effects("python3 -m tool"), "delete@home"));
    let e = s.effects("python3 ok.py");
    assert!(
        e.iter().all(|x| x.starts_with("read@") || x == "exec@none"),
        "{e:?}"
    );
    // An installed module (nothing beside it) is not a missing file.
    assert!(!has(
        &s.effects("python3 -m json.tool x.json"),
        "opaque@none"
    ));
}

#[test]
fn text_that_cannot_be_read_is_opaque() {
    let s = Scratch::new();
    s.write("big.sh", &"echo x\n".repeat(60_000));
    let bin = s.project.join("app");
    std::fs::write(&bin, b"\x7fELF\0\0\0\x01").unwrap();
    for line in [
        "bash missing.sh",
        "bash big.sh",
        "./app",
        "python3 gone.py",
        "make",
        "npm test",
    ] {
        let e = s.effects(line);
        assert!(has(&e, "opaque@none"), "{line}: {e:?}");
    }
    // Changed by the line before it runs: what is on the disk now is not what runs.
    s.write("ok.sh", "echo hi\n");
    assert!(has(
        &s.effects("cp evil.sh ok.sh && bash ok.sh"),
        "opaque@none"
    ));
    // Written with shown text, then run by something else that reads it (a git hook, a
    // Makefile, a module a search path names): that text is what runs, not what is on the
    // disk now.
    s.write(".git/hooks/pre-commit", "echo fine\n");
    s.write("Makefile", "t:\n\techo fine\n");
    for line in [
        "echo 'rm -rf ~' > .git/hooks/pre-commit && git commit -m x",
        "printf 't:\\n\\trm -rf ~\\n' > Makefile && make t",
        "printf 't:\\n\\trm -rf ~\\n' > /tmp/mk && make -f /tmp/mk t",
        "printf 'x:\\n\\trm -rf ~\\n' > Makefile; make",
        "echo 'import os; os.system(\"rm -rf ~\")' > x.py && python3 x.py",
        "echo 'import os; os.system(\"rm -rf ~\")' > x.py && python3 -m x",
        "echo 'import os; os.system(\"rm -rf ~\")' > x.py && python3 -c 'import x'",
        "echo 'system(\"rm -rf ~\")' > x.pl && perl x.pl",
        "echo 'system(\"rm -rf ~\")' > x.rb && ruby x.rb",
        "echo 'require(\"child_process\").execSync(\"rm -rf ~\")' > x.js && node x.js",
        "printf '#!/usr/bin/env python3\\nimport shutil; shutil.rmtree(\"/\")\\n' > r && ./r",
        "echo 'rm -rf ~' | tee run.sh >/dev/null && bash run.sh",
        "mkdir -p /tmp/m && echo 'import os; os.system(\"rm -rf ~\")' > /tmp/m/x.py && PYTHONPATH=/tmp/m python3 -c 'import x'",
        "echo 'system(\"rm -rf ~\"); 1;' > /tmp/x.pm && PERL5LIB=/tmp perl -Mx -e 1",
        "printf 'x:\\n    rm -rf ~\\n' > justfile && just x",
        "printf 'task :x do\\n  system(\"rm -rf ~\")\\nend\\n' > Rakefile && rake x",
        "printf 'import os\\nos.system(\"rm -rf ~\")\\n' > setup.py && pip install .",
        "printf 'rm -rf ~\\n' > /tmp/w.sh && chmod +x /tmp/w.sh && RUSTC_WRAPPER=/tmp/w.sh cargo build",
    ] {
        let e = s.effects(line);
        assert!(has(&e, "delete@home") || has(&e, "delete@root"), "{line}: {e:?}");
    }
    // Its benign twins stay as they are.
    for line in [
        "printf 't:\\n\\techo hi\\n' > Makefile && make t",
        "echo 'print(1)' > x.py && python3 x.py",
        "echo 'print(1)' > x.py && python3 -c 'import x'",
        "echo ls | tee run.sh && bash run.sh",
    ] {
        let e = s.effects(line);
        assert!(
            !e.iter()
                .any(|x| x.starts_with("delete@") || x.starts_with("opaque@")),
            "{line}: {e:?}"
        );
    }
    // git's configuration appended to, then git run: not what is on the disk now.
    assert!(has(
        &s.effects("printf '[alias]\\nx = !rm -rf ~\\n' >> .git/config && git x"),
        "opaque@vcs"
    ));
    assert!(!has(
        &s.effects("echo 'ls' > ok.sh && bash ok.sh"),
        "opaque@none"
    ));
    // Written with text the line shows: that text is what runs (read from the line).
    assert!(has(
        &s.effects("echo 'rm -rf ~' > ok.sh && bash ok.sh"),
        "delete@home"
    ));
    // A system program is not read.
    assert!(!has(&s.effects("/usr/bin/env"), "opaque@none"));
}

#[test]
fn makefile_targets_run_their_recipes() {
    let s = Scratch::new();
    s.write(
        "Makefile",
        "OUT := build\n.PHONY: all clean nuke\nall:\n\t@echo building\n\tmkdir -p $(OUT)\nclean:\n\trm -rf $(OUT)\nnuke: clean\n\trm -rf ~\nsub:\n\t$(MAKE) -C lib wipe\n",
    );
    s.write("lib/Makefile", "wipe:\n\trm -rf ../.claude\n");
    s.write("other/GNUmakefile", "t:\n\trm -rf /etc\n");
    let e = s.effects("make");
    assert!(!e.iter().any(|x| x.starts_with("delete@")), "{e:?}");
    let e = s.effects("make clean");
    assert!(
        has(&e, "delete@outputs") && !has(&e, "delete@home"),
        "{e:?}"
    );
    assert!(has(&s.effects("make nuke"), "delete@home"));
    assert!(has(&s.effects("make -j4 nuke"), "delete@home"));
    assert!(has(&s.effects("make sub"), "delete@gate"));
    assert!(has(&s.effects("make -C lib wipe"), "delete@gate"));
    assert!(has(&s.effects("make -C other t"), "delete@system"));
    assert!(has(&s.effects("cd other && make t"), "delete@system"));
    assert!(!has(&s.effects("make -n nuke"), "delete@home"));
}

#[test]
fn package_scripts_run_with_their_pre_and_post_scripts() {
    let s = Scratch::new();
    s.write(
        "package.json",
        r#"{"scripts": {"test": "jest", "pretest": "rm -rf ~", "build": "tsc", "lint": "eslint .",
            "postinstall": "rm -rf .claude", "wipe": "rm -rf /etc", "ci": "npm run wipe"}}"#,
    );
    s.write(
        "web/package.json",
        r#"{"scripts": {"dev": "rm -rf ../.claude"}}"#,
    );
    for line in [
        "npm test",
        "npm t",
        "yarn test",
        "pnpm test",
        "npm run test",
        "npm run-script test",
    ] {
        assert!(has(&s.effects(line), "delete@home"), "{line}");
    }
    for line in [
        "npm install",
        "npm ci",
        "yarn",
        "yarn install",
        "pnpm install",
    ] {
        assert!(
            has(&s.effects(line), "delete@gate"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    for line in [
        "npm run wipe",
        "yarn wipe",
        "pnpm wipe",
        "bun run wipe",
        "npm run ci",
    ] {
        assert!(
            has(&s.effects(line), "delete@system"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    assert!(has(&s.effects("npm --prefix web run dev"), "delete@gate"));
    assert!(has(&s.effects("cd web && npm run dev"), "delete@gate"));
    // Benign twins: scripts that build, lint, install a named package.
    for line in [
        "npm run build",
        "yarn lint",
        "npm install left-pad",
        "npm install --ignore-scripts",
    ] {
        let e = s.effects(line);
        assert!(
            !e.iter()
                .any(|x| x.starts_with("delete@") || x == "opaque@none"),
            "{line}: {e:?}"
        );
    }
    // The package written by the line itself: its scripts are what runs.
    for line in [
        "echo '{\"scripts\":{\"test\":\"rm -rf ~\"}}' > package.json && npm test",
        "echo '{\"scripts\":{\"x\":\"rm -rf ~\"}}' > package.json && npm run x",
        "echo '{\"scripts\":{\"postinstall\":\"rm -rf ~\"}}' > package.json && npm install",
        "echo '{\"scripts\":{\"build\":\"rm -rf ~\"}}' > package.json && yarn build",
    ] {
        let e = s.effects(line);
        assert!(has(&e, "delete@home"), "{line}: {e:?}");
    }
    assert!(!has(
        &s.effects("echo '{}' > package.json && npm test"),
        "delete@home"
    ));
}

#[test]
fn git_runs_what_its_stored_configuration_names() {
    if !git_available() {
        return;
    }
    let s = Scratch::new();
    s.git(&["init", "-q"]);
    let e = s.effects("git status");
    assert!(
        !e.iter()
            .any(|x| x.starts_with("delete@") || x == "opaque@none"),
        "{e:?}"
    );
    s.git(&["config", "alias.nuke", "!rm -rf ~"]);
    s.git(&["config", "alias.st", "status"]);
    assert!(has(&s.effects("git nuke"), "delete@home"));
    assert!(!has(&s.effects("git st"), "delete@home"));
    s.write("watch.sh", "rm -rf .claude\n");
    s.git(&["config", "core.fsmonitor", "./watch.sh"]);
    assert!(has(&s.effects("git status"), "delete@gate"));
    s.git(&["config", "--unset", "core.fsmonitor"]);
    s.git(&["config", "core.pager", "rm -rf ~; less"]);
    assert!(has(&s.effects("git log"), "delete@home"));
    assert!(!has(&s.effects("git add -A"), "delete@home"));
    s.git(&["config", "--unset", "core.pager"]);
    s.git(&["config", "diff.bin.textconv", "rm -rf /etc"]);
    assert!(has(&s.effects("git diff"), "delete@system"));
    s.git(&["config", "--unset", "diff.bin.textconv"]);
    // A hook of the repository, or of `core.hooksPath`.
    s.write(".git/hooks/pre-commit", "#!/bin/sh\nrm -rf ~\n");
    assert!(has(&s.effects("git commit -m x"), "delete@home"));
    assert!(!has(&s.effects("git status"), "delete@home"));
    s.write(".githooks/pre-push", "#!/bin/sh\nrm -rf .claude\n");
    s.git(&["config", "core.hooksPath", ".githooks"]);
    assert!(has(&s.effects("git push"), "delete@gate"));
    // The user's own configuration counts too.
    std::fs::write(
        s.home.join(".gitconfig"),
        "[alias]\n\twipe = !rm -rf /etc\n",
    )
    .unwrap();
    assert!(has(&s.effects("git wipe"), "delete@system"));
    assert!(has(&s.effects("git -C . wipe"), "delete@system"));
}

#[test]
fn a_parent_holding_gate_s_files_is_them() {
    let s = Scratch::new();
    s.write(".github/hooks/gate.json", "{}");
    s.write(".github/workflows/ci.yml", "on: push");
    s.write("build/out.o", "x");
    std::fs::create_dir_all(s.home.join("work/other/.claude")).unwrap();
    assert!(has(&s.effects("rm -rf .github"), "delete@gate"));
    assert!(has(&s.effects("mv .github /tmp/x"), "move@gate"));
    assert!(has(&s.effects("rm -rf ."), "delete@gate"));
    assert!(has(&s.effects("rm -rf ~/work"), "delete@gate"));
    // Benign twins.
    assert_eq!(s.effects("rm -rf build/"), ["delete@outputs"]);
    assert_eq!(s.effects("rm -rf .github/workflows"), ["delete@source"]);
    assert_eq!(s.without_disk("rm -rf .github"), ["delete@source"]);
}

#[test]
fn archives_write_what_they_hold() {
    let s = Scratch::new();
    let run = |args: &[&str], dir: &Path| {
        let out = std::process::Command::new(args[0])
            .args(&args[1..])
            .current_dir(dir)
            .output()
            .expect("archiver");
        assert!(out.status.success(), "{args:?}: {out:?}");
    };
    let src = s.home.join("src");
    std::fs::create_dir_all(src.join(".claude")).unwrap();
    std::fs::write(src.join(".claude/settings.json"), "{}").unwrap();
    std::fs::write(src.join("a.txt"), "a").unwrap();
    run(&["tar", "-cf", "../evil.tar", ".claude", "a.txt"], &src);
    run(&["tar", "-cf", "../ok.tar", "a.txt"], &src);
    run(&["tar", "-czf", "../ok.tgz", "a.txt"], &src);
    let zipped = std::process::Command::new("zip").arg("-v").output().is_ok();
    if zipped {
        run(
            &["zip", "-q", "-r", "../evil.zip", ".claude", "a.txt"],
            &src,
        );
        run(&["zip", "-q", "../ok.zip", "a.txt"], &src);
    }
    assert!(has(&s.effects("tar -xf ../evil.tar"), "write@gate"));
    assert!(has(&s.effects("tar xf ~/evil.tar"), "write@gate"));
    let e = s.effects("tar -xf ../ok.tar");
    assert!(has(&e, "write@project") && !has(&e, "write@gate"), "{e:?}");
    // Compressed: its members are not read; extracted where gate's files are, it writes them.
    assert!(has(&s.effects("tar -xzf ../ok.tgz"), "write@gate"));
    assert!(!has(
        &s.effects("tar -xzf ../ok.tgz -C /tmp/x"),
        "write@gate"
    ));
    if zipped {
        assert!(has(&s.effects("unzip ../evil.zip"), "write@gate"));
        assert!(!has(&s.effects("unzip ../ok.zip"), "write@gate"));
    }
}

#[test]
fn git_restoring_stashing_and_cleaning_reach_the_files_they_change() {
    if !git_available() {
        return;
    }
    let s = Scratch::new();
    s.git(&["init", "-q"]);
    s.write("src/a.rs", "fn main() {}");
    s.git(&["add", "-A"]);
    s.git(&["commit", "-q", "-m", "init"]);
    // Tracked and unchanged: restoring or stashing leaves gate's settings as they are.
    for line in [
        "git stash",
        "git checkout .",
        "git reset --hard",
        "git restore .",
    ] {
        assert!(
            !has(&s.effects(line), "overwrite@gate"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    // Changed (the user's hook added and not committed): they put it back.
    std::thread::sleep(std::time::Duration::from_millis(20));
    s.write(".claude/settings.json", "{\"hooks\":{\"PreToolUse\":[]}}");
    for line in [
        "git stash",
        "git stash push",
        "git checkout .",
        "git checkout -- .",
        "git reset --hard",
        "git restore .",
        "git checkout-index -a -f",
        "git -C . checkout .",
    ] {
        assert!(
            has(&s.effects(line), "overwrite@gate"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    assert!(!has(
        &s.effects("git checkout -- src/a.rs"),
        "overwrite@gate"
    ));
    // Untracked settings: cleaned, or stashed with -u.
    s.write(".claude/settings.local.json", "{}");
    for line in [
        "git stash -u",
        "git stash --include-untracked",
        "git clean -fdx",
        "git clean -fd",
    ] {
        assert!(
            has(&s.effects(line), "delete@gate"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    // Ignored: `clean -fd` and `stash -u` keep it, `-x` and `-a` do not.
    std::fs::write(s.project.join(".gitignore"), "settings.local.json\n").unwrap();
    assert!(
        !has(&s.effects("git clean -fd"), "delete@gate"),
        "{:?}",
        s.effects("git clean -fd")
    );
    assert!(has(&s.effects("git clean -fdx"), "delete@gate"));
    assert!(has(&s.effects("git stash -a"), "delete@gate"));
    // A patch applied through `-C`: read where git reads it.
    s.write(
        "p.patch",
        "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-a\n+b\n",
    );
    assert!(has(&s.effects("git -C . apply p.patch"), "write@gate"));
    assert!(has(&s.effects("git apply p.patch"), "write@gate"));
}

#[test]
fn a_path_through_a_link_is_the_file_it_reaches() {
    let s = Scratch::new();
    let docs = s.home.join("Documents");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("cv.pdf"), "x").unwrap();
    std::os::unix::fs::symlink(&docs, s.project.join("docs")).unwrap();
    let e = s.effects("rm -rf docs/*");
    assert!(has(&e, "delete@outside"), "{e:?}");
    // A hard link to gate's hook settings, then a write through it.
    std::fs::hard_link(
        s.project.join(".claude/settings.json"),
        s.project.join("notes.json"),
    )
    .unwrap();
    for line in [
        "echo '{}' > notes.json",
        "printf x >> notes.json",
        "chmod 777 notes.json",
    ] {
        assert!(
            has(&s.effects(line), "write@gate")
                || has(&s.effects(line), "overwrite@gate")
                || has(&s.effects(line), "permissions@gate"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    // An ordinary file with one link, or a link to a file of the project's own.
    std::fs::write(s.project.join("plain.txt"), "x").unwrap();
    let e = s.effects("echo x > plain.txt");
    assert!(
        has(&e, "overwrite@source") && !e.iter().any(|x| x.ends_with("@gate")),
        "{e:?}"
    );
}

#[test]
fn what_was_read_is_digested() {
    let s = Scratch::new();
    s.write("m.sql", "DELETE FROM t;");
    let digest = |line: &str| {
        let mut out = Vec::new();
        super::begin_reads();
        effects_of_line(line, &s.at(true), &mut out);
        super::end_reads()
    };
    let first = digest("sqlite3 app.db < m.sql");
    assert!(first.is_some());
    assert_eq!(digest("sqlite3 app.db < m.sql"), first);
    s.write("m.sql", "DROP TABLE t;");
    assert_ne!(digest("sqlite3 app.db < m.sql"), first);
    assert_eq!(digest("ls -la"), None);
}

#[test]
fn every_runner_form_reaches_the_script() {
    let s = Scratch::new();
    s.write("run.sh", "rm -rf ~\n");
    s.write("ok.sh", "echo fine\n");
    for line in [
        "env FOO=1 ./run.sh",
        "env -i bash run.sh",
        "nohup bash run.sh",
        "time sh run.sh",
        "timeout 60 ./run.sh",
        "sudo ./run.sh",
        "exec bash run.sh",
        "nice -n 5 sh run.sh",
        "bash -c './run.sh'",
        "sh -c 'bash run.sh'",
        "dash run.sh",
        "ksh run.sh",
        "zsh run.sh",
        "(cd sub && ../run.sh)",
        "cd /tmp && sh ~/proj/run.sh",
        "./run.sh > log.txt 2>&1",
        "true && bash run.sh",
        "bash run.sh | tee out.log",
    ] {
        let e = s.effects(line);
        assert!(has(&e, "delete@home"), "{line}: {e:?}");
    }
    for line in [
        "env FOO=1 ./ok.sh",
        "nohup bash ok.sh",
        "bash -c './ok.sh'",
        "sudo ./ok.sh",
    ] {
        assert!(
            !s.effects(line).iter().any(|x| x.starts_with("delete@")),
            "{line}"
        );
    }
}

#[test]
fn every_interpreter_form_reaches_its_file() {
    let s = Scratch::new();
    s.write("a.js", "require('child_process').execSync('rm -rf ~')\n");
    s.write("a.ts", "Bun.$`rm -rf ~`\n");
    s.write("a.php", "<?php system('rm -rf ~');\n");
    s.write("a.awk", "BEGIN { system(\"rm -rf ~\") }\n");
    s.write("a.lua", "os.execute('rm -rf ~')\n");
    s.write("a.R", "system('rm -rf ~')\n");
    s.write("a.rb", "system('rm -rf ~')\n");
    s.write("a.pl", "system('rm -rf ~');\n");
    s.write(
        "a.py",
        "import subprocess\nsubprocess.run(['rm', '-rf', '/etc'])\n",
    );
    for (line, want) in [
        ("node a.js", "delete@home"),
        ("node --no-warnings a.js arg", "delete@home"),
        ("deno run -A a.js", "delete@home"),
        ("php a.php", "delete@home"),
        ("php -f a.php", "delete@home"),
        ("awk -f a.awk", "delete@home"),
        ("lua a.lua", "delete@home"),
        ("Rscript a.R", "delete@home"),
        ("ruby a.rb", "delete@home"),
        ("perl -w a.pl", "delete@home"),
        ("python3 a.py", "delete@system"),
        ("python a.py", "delete@system"),
        ("uv run python a.py", "delete@system"),
    ] {
        let e = s.effects(line);
        assert!(has(&e, want), "{line}: {e:?}");
    }
}

#[test]
fn every_parent_archive_and_work_tree_form() {
    let s = Scratch::new();
    s.write(".github/hooks/h.json", "{}");
    std::fs::create_dir_all(s.home.join("other/.codex")).unwrap();
    for (line, want) in [
        ("rm -r .github", "delete@gate"),
        ("rm -rf ./.github/", "delete@gate"),
        ("rm -rf .git*", "delete@gate"),
        ("rm -rf ~/proj", "delete@gate"),
        ("rm -rf ../proj", "delete@gate"),
        ("rm -rf ~/other", "delete@gate"),
        ("mv ~/other /tmp/o", "move@gate"),
        ("git rm -r .github", "delete@gate"),
        ("find .github -delete", "delete@gate"),
        ("rsync -a --delete /tmp/empty/ ./", "delete@gate"),
    ] {
        let e = s.effects(line);
        assert!(has(&e, want), "{line}: {e:?}");
    }
    // Benign twins: a directory that holds none of gate's files.
    s.write("build/x.o", "x");
    s.write("src/lib.rs", "x");
    for line in [
        "rm -rf build",
        "rm -rf src",
        "mv src lib",
        "rm -rf /tmp/x",
        "find build -delete",
    ] {
        let e = s.effects(line);
        assert!(!e.iter().any(|x| x.ends_with("@gate")), "{line}: {e:?}");
    }
}

#[test]
fn every_archive_form_into_gate_s_files() {
    let s = Scratch::new();
    let src = s.home.join("src");
    std::fs::create_dir_all(src.join("top")).unwrap();
    std::fs::write(src.join("top/.claude.json"), "{}").unwrap();
    let out = std::process::Command::new("tar")
        .args(["-cf", "../nested.tar", "top"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(out.status.success());
    // `top/.claude.json` is nothing of gate's; with `top/` stripped it is `~/.claude.json`.
    assert!(!has(&s.effects("tar -xf ~/nested.tar -C ~"), "write@gate"));
    for line in [
        "tar -xf ~/nested.tar -C ~ --strip-components=1",
        "tar --strip-components 1 -xf ~/nested.tar -C ~",
        "bsdtar -xf ~/nested.tar --strip-components=1 -C ~",
        "cd ~ && tar -xf nested.tar --strip-components=1",
    ] {
        assert!(
            has(&s.effects(line), "write@gate"),
            "{line}: {:?}",
            s.effects(line)
        );
    }
    // Forms whose members are not read: everything the directory holds.
    for name in ["a.7z", "a.cpio", "a.tar.xz"] {
        std::fs::write(s.home.join(name), "not read").unwrap();
    }
    for line in [
        "7z x ~/a.7z",
        "cpio -idm < ~/a.cpio",
        "tar -xJf ~/a.tar.xz",
        "tar -xf - < ~/nested.tar",
    ] {
        let e = s.effects(line);
        assert!(
            has(&e, "write@gate") || has(&e, "overwrite@gate"),
            "{line}: {e:?}"
        );
    }
    assert!(!has(&s.effects("7z x ~/a.7z -o/tmp/x"), "write@gate"));
    // An archive that is not there, and that nothing before it on the line makes: the
    // extraction fails and writes nothing; one the line fetches first is unread.
    for line in [
        "tar -xf ~/missing.tar -C ~",
        "ls && tar -xf ~/missing.tar -C ~",
        "TAR_OPTIONS=--no-same-owner tar -xf ~/missing.tar -C ~",
    ] {
        assert!(!has(&s.effects(line), "write@gate"), "{line}");
    }
    for line in [
        "curl -o ~/missing.tar https://x/a.tar && tar -xf ~/missing.tar -C ~",
        "cp /media/x.tar ~/missing.tar; tar -xf ~/missing.tar -C ~",
        "tar -xf - -C ~ < ~/missing.tar",
    ] {
        assert!(has(&s.effects(line), "write@gate"), "{line}");
    }
}

#[test]
fn a_computed_command_in_a_script_names_only_its_own_words() {
    let s = Scratch::new();
    // A wrapper script: its program is computed, and elsewhere it removes a temporary file.
    s.write(
        "gradlew",
        "#!/bin/sh\ncleanup() { rm -f \"$TMPFILE\"; }\nexec \"$JAVACMD\" \"$@\"\n",
    );
    let e = s.effects("./gradlew build");
    assert!(has(&e, "opaque@none"), "{e:?}");
    assert!(!has(&e, "opaque@unknown"), "{e:?}");
    // A computed command that names a protected place itself still does.
    s.write("w.sh", "$RUNNER ~/.ssh/id_rsa\n");
    assert!(has(&s.effects("sh w.sh"), "opaque@secrets"));
}

#[test]
fn a_temporary_directory_a_script_makes_is_temporary() {
    let s = Scratch::new();
    s.write(
        "build.sh",
        "set -e\ntmp=$(mktemp -d)\ntrap 'rm -rf \"$tmp\"' EXIT\ncp -r src \"$tmp\"\nrm -rf \"$tmp\"/cache\n",
    );
    let e = s.effects("bash build.sh");
    assert!(!has(&e, "delete@unknown"), "{e:?}");
    assert!(has(&e, "delete@temp"), "{e:?}");
    // The same on the line, and the project's own top level.
    assert!(has(
        &s.without_disk("t=$(mktemp -d); rm -rf \"$t\""),
        "delete@temp"
    ));
    assert!(has(
        &s.without_disk("root=$(git rev-parse --show-toplevel); rm -rf \"$root\""),
        "delete@project"
    ));
    // Made somewhere that is not temporary: not known.
    assert!(has(
        &s.without_disk("t=$(mktemp -p \"$D\"); rm -rf \"$t\""),
        "delete@unknown"
    ));
}

#[test]
fn an_overwrite_where_nothing_is_creates_a_file() {
    let s = Scratch::new();
    s.write("notes.txt", "kept\n");
    let home = s.home.display().to_string();
    std::fs::create_dir_all(s.home.join("Downloads")).unwrap();
    std::fs::write(s.home.join("Downloads/old.sh"), "echo old\n").unwrap();
    // Nothing there: created, not overwritten.
    for (line, want) in [
        ("echo hi > ~/notes-new.txt", "write@outside"),
        (
            "curl -fsSL -o ~/Downloads/install.sh https://example.com/i.sh",
            "write@outside",
        ),
        ("tar -cf ~/backup.tar .", "write@outside"),
    ] {
        let e = s.effects(line);
        assert!(has(&e, want), "{line}: {e:?}");
        assert!(
            !e.iter().any(|x| x.starts_with("overwrite@")),
            "{line}: {e:?}"
        );
    }
    // Something there: its content is lost.
    for (line, want) in [
        ("echo hi > ~/Downloads/old.sh", "overwrite@outside"),
        ("echo x > notes.txt", "overwrite@source"),
        ("echo x > ~/Downloads", "overwrite@outside"),
    ] {
        let e = s.effects(line);
        assert!(has(&e, want), "{line}: {e:?}");
    }
    // The project's own: its creation is an overwrite the director's backup records.
    assert!(has(&s.effects("echo x > notes-2.txt"), "overwrite@source"));
    // A pattern, or gate's own file, keeps its overwrite.
    assert!(has(
        &s.effects("cp x ~/Downloads/*.sh"),
        "overwrite@outside"
    ));
    let e = s.effects(&format!("echo x > {home}/proj/.claude/new.json"));
    assert!(!e.iter().any(|x| x == "write@gate"), "{e:?}");
    // A tool installed under its own name is created (one named as a base program also
    // runs later in that program's place: `later::runs_later`).
    let e = s.effects("cp target/release/mytool ~/.local/bin/mytool");
    assert!(has(&e, "write@dotfiles"), "{e:?}");
    // Without the disk (a replay, a test) nothing changes.
    assert!(has(
        &s.without_disk("echo hi > ~/notes-new.txt"),
        "overwrite@outside"
    ));
}
