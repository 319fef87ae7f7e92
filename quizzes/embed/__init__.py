"""Quizzes, and single questions, embedded in a guide's pages (an iframe on another site)."""
