"""Claims of attention_optimization (see shared/spec)."""
