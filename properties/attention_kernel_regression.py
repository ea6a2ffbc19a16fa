"""Claims of attention_kernel_regression (see shared/spec)."""
