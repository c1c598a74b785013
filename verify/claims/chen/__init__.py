"""Claims of the chen paper(s)."""
