mod spec {
    gate_macros::spec!("tests/ui/g026_quiet_blocks.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
