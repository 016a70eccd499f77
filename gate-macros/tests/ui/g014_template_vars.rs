mod spec {
    gate_macros::spec!("tests/ui/g014_template_vars.toml");
}

fn main() {
    let _ = &spec::COMPILED;
}
