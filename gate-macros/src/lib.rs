//! gate-macros: proc-macro entry points; each is a few lines calling gate-codegen.
