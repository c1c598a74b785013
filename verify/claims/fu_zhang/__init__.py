"""Claims of the fu_zhang paper(s)."""
