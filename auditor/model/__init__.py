"""Pydantic wire models of every resource of the seed (section 2) and its error shapes (section 7)."""
