mod spec {
    gate_macros::spec!("tests/ui/g007_unreachable.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
