//! Every shipped spec's diagram can be read: at most four edges drawn from a state, no label
//! over 120 characters, and (where Graphviz is installed) a layout that fits 30 × 30 inches.
//! `.ci/run` installs Graphviz and sets `GATE_DIAGRAM_TOOLS=require`, so there a missing `dot`
//! fails instead of skipping. The Mermaid the docs pages carry is rendered with mermaid-cli
//! where it is installed (`.ci/run` installs it and Chromium).

use gate_spec::diagram::{self, Shape, View};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const MAX_EDGES_PER_STATE: usize = 4;
const MAX_LABEL: usize = 120;
const MAX_INCHES: f64 = 30.0;

fn shipped() -> Vec<(String, gate_spec::ir::Spec)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../specs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("specs/ exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 6, "the shipped specs are found: {files:?}");
    files
        .iter()
        .map(|path| {
            let display = |p: &Path| p.display().to_string();
            let compiled = gate_spec::compile_file(path, &display).expect("readable");
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let rendered = compiled.render();
            let spec = compiled
                .spec
                .unwrap_or_else(|| panic!("{name} compiles: {rendered}"));
            (name, spec)
        })
        .collect()
}

#[test]
fn every_state_draws_at_most_four_edges_and_labels_are_short() {
    let mut problems = Vec::new();
    for (name, spec) in shipped() {
        for view in [View::Overview, View::States] {
            bars(&name, &Shape::new(&spec, view), &mut problems);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn bars(name: &str, shape: &Shape, problems: &mut Vec<String>) {
    let spec = shape.spec;
    {
        for (node, degree) in shape.out_degrees().iter().enumerate() {
            if *degree > MAX_EDGES_PER_STATE {
                problems.push(format!(
                    "{name}: `{}` draws {degree} edges",
                    shape.nodes[node].title
                ));
            }
        }
        for (m, degree) in shape.marker_degrees().iter().enumerate() {
            if *degree > MAX_EDGES_PER_STATE {
                problems.push(format!(
                    "{name}: `{}` draws {degree} edges",
                    shape.marker_text(m)
                ));
            }
        }
        for edge in &shape.edges {
            let chars = edge.label.chars().count();
            if chars > MAX_LABEL {
                problems.push(format!(
                    "{name}: a label of {chars} characters: {}",
                    edge.label
                ));
            }
        }
        // Every transition is drawn by some edge: the overview loses nothing but detail.
        let mut drawn: Vec<usize> = shape
            .edges
            .iter()
            .flat_map(|e| {
                e.families
                    .iter()
                    .flat_map(|f| shape.families[*f].transitions.clone())
            })
            .collect();
        drawn.sort_unstable();
        drawn.dedup();
        if drawn.len() != spec.transitions.len() {
            problems.push(format!(
                "{name}: {} of {} transitions drawn",
                drawn.len(),
                spec.transitions.len()
            ));
        }
    }
}

/// `dot -Tplain`'s first line: `graph SCALE WIDTH HEIGHT` in inches.
fn layout_inches(dot: &str) -> Option<(f64, f64)> {
    let mut child = Command::new("dot")
        .arg("-Tplain")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(dot.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    assert!(
        out.status.success(),
        "dot failed: {}\n{dot}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.lines().next()?.split_whitespace().skip(2);
    Some((words.next()?.parse().ok()?, words.next()?.parse().ok()?))
}

fn graphviz_required() -> bool {
    std::env::var("GATE_DIAGRAM_TOOLS").is_ok_and(|v| v == "require")
}

#[test]
fn every_overview_lays_out_within_thirty_inches() {
    let mut problems = Vec::new();
    for (name, spec) in shipped() {
        let Some((w, h)) = layout_inches(&diagram::dot(&spec)) else {
            assert!(
                !graphviz_required(),
                "GATE_DIAGRAM_TOOLS=require but Graphviz's `dot` cannot be run"
            );
            eprintln!("skipped: Graphviz's `dot` is not installed (apt-get install graphviz)");
            return;
        };
        eprintln!("{name}: {w:.1} x {h:.1} in");
        if w > MAX_INCHES || h > MAX_INCHES {
            problems.push(format!("{name}: {w:.1} x {h:.1} inches"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_detail_view_is_valid_dot() {
    for (_, spec) in shipped() {
        if layout_inches(&diagram::dot_view(&spec, View::Detail)).is_none() {
            assert!(!graphviz_required(), "Graphviz's `dot` cannot be run");
            return;
        }
    }
}

/// mermaid-cli (`GATE_MMDC`, else `mmdc` on the PATH) and the browser it drives
/// (`PUPPETEER_EXECUTABLE_PATH`, else Debian's `/usr/bin/chromium`).
fn mermaid_cli() -> Option<(PathBuf, PathBuf)> {
    let mmdc = std::env::var_os("GATE_MMDC")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("PATH").and_then(|path| {
                std::env::split_paths(&path)
                    .map(|dir| dir.join("mmdc"))
                    .find(|p| p.is_file())
            })
        })?;
    let browser = std::env::var_os("PUPPETEER_EXECUTABLE_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    (mmdc.is_file() && browser.is_file()).then_some((mmdc, browser))
}

/// The ```mermaid blocks of a Markdown page.
fn mermaid_blocks(page: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find("```mermaid\n") {
        let body = &rest[at + "```mermaid\n".len()..];
        let end = body.find("```").expect("a closed block");
        blocks.push(body[..end].to_string());
        rest = &body[end..];
    }
    blocks
}

/// The `viewBox` width and height of an SVG, in pixels.
fn view_box(svg: &str) -> Option<(f64, f64)> {
    let at = svg.find("viewBox=\"")? + "viewBox=\"".len();
    let text = &svg[at..at + svg[at..].find('"')?];
    let mut numbers = text.split_whitespace().skip(2).map(|n| n.parse::<f64>());
    Some((numbers.next()?.ok()?, numbers.next()?.ok()?))
}

/// The Mermaid every docs page carries renders (with the real mermaid-cli), and the page's
/// first diagram, the overview, to a size a page can show: 30 inches at 96 pixels an inch.
#[test]
fn every_docs_page_mermaid_renders() {
    let Some((mmdc, browser)) = mermaid_cli() else {
        assert!(
            !graphviz_required(),
            "GATE_DIAGRAM_TOOLS=require but mermaid-cli or its browser is missing \
             (set GATE_MMDC and PUPPETEER_EXECUTABLE_PATH)"
        );
        eprintln!("skipped: mermaid-cli (mmdc) or chromium is not installed");
        return;
    };
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/machines");
    let scratch = std::env::temp_dir().join(format!("gate-mermaid-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let config = scratch.join("puppeteer.json");
    let browser_config = format!(
        "{{\"executablePath\": {:?}, \"args\": [\"--no-sandbox\", \"--disable-gpu\", \
         \"--disable-background-networking\", \"--disable-component-update\", \
         \"--disable-sync\", \"--no-first-run\"]}}",
        browser.display().to_string()
    );
    std::fs::write(&config, browser_config).expect("write config");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&docs)
        .expect("docs/machines exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    let mut problems = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("readable page");
        for (i, block) in mermaid_blocks(&text).iter().enumerate() {
            let input = scratch.join(format!("in{i}.mmd"));
            let output = scratch.join(format!("out{i}.svg"));
            std::fs::write(&input, block).expect("write block");
            let run = Command::new(&mmdc)
                .arg("-p")
                .arg(&config)
                .arg("-i")
                .arg(&input)
                .arg("-o")
                .arg(&output)
                .output()
                .expect("mmdc runs");
            let name = page.file_name().unwrap().to_string_lossy();
            if !run.status.success() {
                problems.push(format!(
                    "{name}: mmdc failed: {}",
                    String::from_utf8_lossy(&run.stderr)
                ));
                continue;
            }
            let svg = std::fs::read_to_string(&output).expect("mmdc wrote the svg");
            let (w, h) = view_box(&svg).expect("the svg has a viewBox");
            eprintln!("{name}: {w:.0} x {h:.0} px");
            if i == 0 && (w > MAX_INCHES * 96.0 || h > MAX_INCHES * 96.0) {
                problems.push(format!("{name}: {w:.0} x {h:.0} px"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(!pages.is_empty());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
