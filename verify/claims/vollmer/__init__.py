"""Claims of the vollmer paper(s)."""
