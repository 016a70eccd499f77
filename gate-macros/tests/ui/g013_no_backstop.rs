mod spec {
    gate_macros::spec!("tests/ui/g013_no_backstop.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
