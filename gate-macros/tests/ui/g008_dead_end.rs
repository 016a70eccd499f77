mod spec {
    gate_macros::spec!("tests/ui/g008_dead_end.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
