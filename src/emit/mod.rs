//! Emitting provider tool JSON from the IR.

pub mod openai;
