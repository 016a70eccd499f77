mod spec {
    gate_macros::spec!("tests/ui/g016_bad_patterns.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
