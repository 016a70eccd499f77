mod spec {
    gate_macros::spec!("tests/ui/g001_syntax.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
