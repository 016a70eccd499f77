//! What a compiled spec embeds builds exactly the IR its source compiles to: the generated
//! `build_ir` (texts as literals, command patterns included) gives back the whole spec, and
//! the embedded JSON is the same IR.

#[test]
fn the_embedded_ir_is_the_ir_of_the_source() {
    assert!(!gate_specs::ALL.is_empty(), "no shipped spec compiled");
    for compiled in gate_specs::ALL {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(compiled.path);
        // From its file, as the macro compiles it (a spec may extend others beside it).
        let shown = |p: &std::path::Path| p.display().to_string();
        let from_file = gate_spec::compile_file(&path, &shown)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let spec = from_file.spec.clone().unwrap_or_else(|| {
            panic!("{} does not compile: {}", compiled.path, from_file.render())
        });
        let commands: usize = spec.rules.iter().map(|r| r.commands.len()).sum();
        assert!(
            commands > 0 || compiled.name == "waypoints_phases" || compiled.name == "example",
            "{} has command patterns",
            compiled.name
        );
        assert!(
            *compiled.ir() == spec,
            "spec `{}`: the built IR differs from the source's",
            compiled.name
        );
        let from_json: gate_spec::ir::Spec =
            serde_json::from_str(compiled.ir_json).expect("the embedded JSON is an IR");
        assert!(
            from_json == spec,
            "spec `{}`: IR_JSON differs",
            compiled.name
        );
    }
}
