"""A small differentiable mesh renderer with compiled ops."""
