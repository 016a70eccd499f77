mod spec {
    gate_macros::spec!("tests/ui/g015_window_blocks.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
