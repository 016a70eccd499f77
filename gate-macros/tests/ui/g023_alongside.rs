mod spec {
    gate_macros::spec!("tests/ui/g023_alongside.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
