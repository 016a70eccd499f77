mod spec {
    gate_macros::spec!("tests/ui/g024_misspelled_override.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
