"""Claims of the baker paper(s)."""
