"""Claims of attention_pruning (see shared/spec)."""
