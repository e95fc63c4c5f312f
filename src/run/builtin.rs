//! The built-in tools. (Interface; being written.)
